/**
 * Event fan-out between API processes: Redis pub/sub when REDIS_URL is set, an
 * in-process emitter otherwise. Messages are JSON values on named channels.
 */
import { EventEmitter } from 'node:events';

export type BusHandler = (message: unknown) => void;

export interface Bus {
  publish(channel: string, message: unknown): Promise<void>;
  /** Calls `handler` for every message on `channel` until the returned function is called. */
  subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export class MemoryBus implements Bus {
  #emitter = new EventEmitter().setMaxListeners(0);

  async publish(channel: string, message: unknown): Promise<void> {
    // Delivered asynchronously, like Redis, so callers never depend on re-entrancy.
    const copy = JSON.parse(JSON.stringify(message)) as unknown;
    queueMicrotask(() => this.#emitter.emit(channel, copy));
  }

  async subscribe(channel: string, handler: BusHandler) {
    this.#emitter.on(channel, handler);
    return async () => {
      this.#emitter.off(channel, handler);
    };
  }

  async close(): Promise<void> {
    this.#emitter.removeAllListeners();
  }
}
