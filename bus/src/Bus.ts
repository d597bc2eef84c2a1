/**
 * Event fan-out between processes (API nodes and media servers): Redis pub/sub when
 * REDIS_URL is set, an in-process emitter otherwise. Messages are JSON on typed channels.
 */
import { EventEmitter } from 'node:events';
import type { Channel } from './Channel.ts';
import type { Logger } from './Logger.ts';

export type BusHandler<T> = (message: T) => void;

export interface Bus {
  publish<T>(channel: Channel<T>, message: T): Promise<void>;
  /**
   * Calls `handler` for every well-formed message on `channel` until the returned function
   * is called; malformed ones are dropped with a log line.
   */
  subscribe<T>(channel: Channel<T>, handler: BusHandler<T>): Promise<() => Promise<void>>;
  /**
   * Calls `handler` each time the bus carries messages between processes again after an
   * outage (other processes may have missed what was said meanwhile); until the returned
   * function is called. The in-process bus has no outages.
   */
  onRecovered(handler: () => void): () => void;
  /**
   * Whether messages reach other processes now: false while Redis is unavailable (what is
   * published then reaches this process only). The in-process bus always carries.
   */
  readonly available: boolean;
  close(): Promise<void>;
}

/** Parses `raw` (JSON text) for `channel`; null, with a log line, when it does not fit. */
export function parseMessage<T>(channel: Channel<T>, raw: string, logger: Logger): T | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    logger.warn('bus: dropped a message that is not JSON', { channel: channel.name });
    return null;
  }
  const parsed = channel.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  logger.warn('bus: dropped a malformed message', {
    channel: channel.name,
    problem: issue ? `${issue.path.join('.') || '(message)'}: ${issue.message}` : 'invalid',
  });
  return null;
}

/** Calls each handler, so that one handler's exception cannot keep the message from the others. */
export function dispatch<T>(
  handlers: Iterable<BusHandler<T>>,
  message: T,
  channel: string,
  logger: Logger,
): void {
  for (const handler of handlers) {
    try {
      handler(message);
    } catch (error) {
      logger.error('bus: a handler failed', { channel, error });
    }
  }
}

/** The bus of a single process: messages go through JSON like Redis's, and are parsed alike. */
export class MemoryBus implements Bus {
  readonly #emitter = new EventEmitter().setMaxListeners(0);
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  async publish<T>(channel: Channel<T>, message: T): Promise<void> {
    const raw = JSON.stringify(message);
    // Delivered asynchronously, like Redis, so callers never depend on re-entrancy.
    queueMicrotask(() => this.#emitter.emit(channel.name, raw));
  }

  /** Publishes text as is, as a stranger on the bus could; for tests of the parsing. */
  async publishRaw(channelName: string, raw: string): Promise<void> {
    queueMicrotask(() => this.#emitter.emit(channelName, raw));
  }

  async subscribe<T>(channel: Channel<T>, handler: BusHandler<T>) {
    const listener = (raw: string) => {
      const message = parseMessage(channel, raw, this.#logger);
      if (message !== null) dispatch([handler], message, channel.name, this.#logger);
    };
    this.#emitter.on(channel.name, listener);
    return async () => {
      this.#emitter.off(channel.name, listener);
    };
  }

  onRecovered(_handler: () => void): () => void {
    return () => {};
  }

  get available(): boolean {
    return true;
  }

  async close(): Promise<void> {
    this.#emitter.removeAllListeners();
  }
}
