/**
 * The API's connection to Redis, with a deadline on every call.
 *
 * A Redis that stops (SIGSTOP, a stalled VM) keeps its TCP connections open, and node-redis
 * then waits for ever; one that restarts refuses connections for a while. Neither may hold
 * up a request. A call that has no answer within `timeoutMs` fails with
 * RedisUnavailableError, and from then on calls fail at once, without being sent (so nothing
 * piles up in memory however long the outage), until a probe PING is answered or the
 * client has reconnected. Callers choose their degraded answer; `onRecovered` handlers put
 * back what Redis lost or missed while it was away.
 */
import { createClient, ErrorReply } from 'redis';
import type { Logger } from './Logger.ts';

export type RedisClient = ReturnType<typeof createClient>;

/** Redis did not answer in time, or is not connected: the caller gives a degraded answer. */
export class RedisUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('Redis is unavailable', { cause });
    this.name = 'RedisUnavailableError';
  }
}

export interface RedisLinkOptions {
  /** How long one call may wait for Redis. */
  timeoutMs?: number;
  /** How often a hung Redis is probed for its return. */
  probeMs?: number;
}

/** Longest wait between two reconnection attempts: a restarted Redis is found within this. */
export const RECONNECT_MAX_DELAY_MS = 1000;
// At start-up Redis gets about 17 s (it may be starting alongside); after that a wrong
// REDIS_URL stops the process instead of retrying forever. Once connected, it reconnects for good.
const STARTUP_RETRIES = 20;
// Commands the client may hold (sent and unanswered, or not yet written); beyond it they fail at
// once. Calls through the link stop early in an outage; this bounds what other users of the
// client (the rate limiter) can pile up.
const MAX_QUEUED_COMMANDS = 10_000;
const DEFAULT_TIMEOUT_MS = 1000;
const DEFAULT_PROBE_MS = 500;

/** A timer this much late means the process, not Redis, was held up. */
const LATE_TIMER_MS = 100;

/**
 * Rejects with RedisUnavailableError once `ms` passed with no answer, counting only time this
 * process ran. A busy event loop or a starved CPU (a loaded two-core machine) fires the timer
 * late, when the answer may be waiting unread on the socket: the lateness is given back once,
 * and the rejection waits for the I/O phase, so an answer already received wins. A Redis that
 * hangs is still declared down, only not by a process that was itself away.
 */
function deadlineOf(ms: number): { expired: Promise<never>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const expired = new Promise<never>((_, reject) => {
    const arm = (wait: number, mayExtend: boolean) => {
      const due = performance.now() + wait;
      timer = setTimeout(() => {
        const late = performance.now() - due;
        if (mayExtend && late > LATE_TIMER_MS) return arm(late, false);
        immediate = setImmediate(() => reject(new RedisUnavailableError('no answer in time')));
      }, wait);
    };
    arm(ms, true);
  });
  return {
    expired,
    cancel: () => {
      clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
    },
  };
}

export class RedisLink {
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #probeMs: number;
  #available = true;
  #downSince = 0;
  #probe: NodeJS.Timeout | null = null;
  #probing = false;
  #recovered = new Set<() => void>();
  #closed = false;

  private constructor(
    readonly client: RedisClient,
    logger: Logger,
    options: RedisLinkOptions,
  ) {
    this.#logger = logger;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#probeMs = options.probeMs ?? DEFAULT_PROBE_MS;
  }

  /** Connects to `url`; throws when Redis cannot be reached at start-up. */
  static async connect(url: string, logger: Logger, options: RedisLinkOptions = {}): Promise<RedisLink> {
    let connected = false;
    const client = createClient({
      url,
      // While reconnecting, commands fail at once instead of queueing to run, stale, afterwards.
      disableOfflineQueue: true,
      commandsQueueMaxLength: MAX_QUEUED_COMMANDS,
      socket: {
        reconnectStrategy: (retries: number, cause: Error) =>
          connected || retries < STARTUP_RETRIES
            ? Math.min(100 * 2 ** retries, RECONNECT_MAX_DELAY_MS)
            : cause,
      },
    });
    const link = new RedisLink(client, logger, options);
    client.on('error', (error: unknown) => {
      if (connected) link.#down(error);
    });
    client.on('end', () => link.#down('connection closed'));
    client.on('ready', () => {
      if (connected) link.#up();
    });
    try {
      await client.connect();
    } catch (error) {
      throw new Error(
        `REDIS_URL: cannot connect to ${url.replace(/\/\/[^@]*@/, '//')}: ${(error as Error).message}`,
      );
    }
    connected = true;
    return link;
  }

  /** False from a failed call until Redis answers again. */
  get available(): boolean {
    return this.#available;
  }

  /**
   * Runs `command` on the client with the deadline. Redis's own error replies pass through
   * unchanged; anything else (timeout, no connection) is a RedisUnavailableError.
   */
  async call<T>(command: (client: RedisClient) => Promise<T>): Promise<T> {
    if (!this.#available || this.#closed) throw new RedisUnavailableError();
    const pending = command(this.client);
    const deadline = deadlineOf(this.#timeoutMs);
    try {
      return await Promise.race([pending, deadline.expired]);
    } catch (error) {
      if (error instanceof ErrorReply) throw error;
      // The late answer (or failure) of an abandoned command is of no interest.
      pending.catch(() => {});
      this.#down(error);
      throw error instanceof RedisUnavailableError ? error : new RedisUnavailableError(error);
    } finally {
      deadline.cancel();
    }
  }

  /** `handler` runs each time Redis is back after an outage (a hang or a reconnection). */
  onRecovered(handler: () => void): () => void {
    this.#recovered.add(handler);
    return () => this.#recovered.delete(handler);
  }

  /** Closes the connection: cleanly when Redis answers, at once when it does not. */
  async close(): Promise<void> {
    if (this.#closed) return;
    const answers =
      this.#available &&
      (await this.call((c) => c.ping()).then(
        () => true,
        () => false,
      ));
    this.#closed = true;
    this.#stopProbe();
    this.#recovered.clear();
    if (!this.client.isOpen) return;
    // close() waits for every outstanding reply, which a hung Redis never sends.
    if (answers) await this.client.close();
    else this.client.destroy();
  }

  #down(cause: unknown): void {
    if (this.#closed) return;
    if (this.#available) {
      this.#available = false;
      this.#downSince = Date.now();
      this.#logger.warn(
        'redis: unavailable; presence is unknown and bus messages to other processes are dropped',
        {
          cause: cause instanceof Error ? cause.message : String(cause),
        },
      );
    }
    if (!this.#probe) {
      this.#probe = setInterval(() => this.#sendProbe(), this.#probeMs);
      this.#probe.unref();
    }
  }

  #up(): void {
    if (this.#closed || this.#available) return;
    this.#available = true;
    this.#stopProbe();
    this.#logger.warn(`redis: available again after ${Date.now() - this.#downSince} ms`);
    for (const handler of this.#recovered) handler();
  }

  // One probe at a time: a hung Redis holds at most one of them.
  #sendProbe(): void {
    if (this.#probing || !this.client.isReady) return;
    this.#probing = true;
    this.client
      .ping()
      .then(
        () => this.#up(),
        () => {},
      )
      .finally(() => {
        this.#probing = false;
      });
  }

  #stopProbe(): void {
    if (this.#probe) clearInterval(this.#probe);
    this.#probe = null;
  }
}
