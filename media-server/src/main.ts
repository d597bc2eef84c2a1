// The media server as a process of its own: a thin shell around WorkerPool. The API runs the same
// pool in its own process tree by default; this entry point is for running media servers apart.
import { loadMediaConfig, type MediaConfig } from './config.ts';
import { MediaConfigError } from './errors.ts';
import { WorkerPool } from './WorkerPool.ts';

let config: MediaConfig;
try {
  config = loadMediaConfig();
} catch (error) {
  if (!(error instanceof MediaConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

let pool: WorkerPool;
try {
  pool = await WorkerPool.create(config);
} catch (error) {
  console.error(`media server: could not start mediasoup workers: ${(error as Error).message}`);
  process.exit(1);
}

const { workers } = pool.load;
const announced = config.announcedIp ? `, announcing ${config.announcedIp}` : '';
console.info(
  `media server: ${workers} mediasoup worker(s), RTC ports ${config.rtcMinPort}-${config.rtcMaxPort}, ` +
    `listening on ${config.listenIp}${announced}`,
);

// Closing the pool kills the workers; with nothing else holding the event loop, the process exits.
const shutdown = (signal: NodeJS.Signals): void => {
  console.info(`media server: ${signal} received, closing`);
  pool.close();
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
