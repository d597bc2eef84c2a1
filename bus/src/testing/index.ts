// Test helpers of @voice/bus: a private Redis to pause and restart, free ports.
export { freePort } from './freePort.ts';
export { MemoryLogger } from './logger.ts';
export { RedisProcess } from './RedisProcess.ts';
