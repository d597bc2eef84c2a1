/**
 * Every app socket a person holds, across all API processes, oldest first: what makes
 * SOCKETS_PER_USER_MAX a cap for the service rather than for each process.
 *
 * Each process also caps the sockets it holds by itself, so the registry only has to
 * widen that cap to the whole service: when Redis is slow or gone, its calls give up
 * after a moment and the per-process cap still holds.
 */
import { SESSION_TTL_SECONDS } from '@voice/protocol';
import type { createClient } from 'redis';
import type { Logger } from '../logger.ts';

type RedisClient = ReturnType<typeof createClient>;

/** Runs one command on Redis, failing when Redis is unavailable (RedisLink has this shape). */
export interface RedisCaller {
  call<T>(command: (client: RedisClient) => Promise<T>): Promise<T>;
  /** `handler` runs each time Redis is back after an outage. */
  onRecovered?(handler: () => void): unknown;
}

export interface SocketRegistry {
  /** Records a new socket; resolves with the person's sockets beyond `cap`, anywhere, oldest first. */
  add(userId: string, socketId: string, cap: number): Promise<string[]>;
  /** Forgets a socket that closed. */
  remove(userId: string, socketId: string): Promise<void>;
  /** Calls `handler` when entries may have been lost (Redis came back, perhaps empty): add yours again. */
  onLost(handler: () => void): void;
}

/** One process: its own cap is the whole cap. */
export class LocalSocketRegistry implements SocketRegistry {
  async add(): Promise<string[]> {
    return [];
  }

  async remove(): Promise<void> {}

  onLost(): void {}
}

/** Longest a registry call may take before the socket layer goes on without it. */
const REDIS_TIMEOUT_MS = 1000;

// Scored by Redis's own clock, so processes whose clocks differ still agree on which is oldest;
// NX keeps the age of a socket that is added again after an outage Redis survived.
const ADD_SCRIPT = `
local now = redis.call('TIME')
redis.call('ZADD', KEYS[1], 'NX', now[1] * 1000000 + now[2], ARGV[1])
local stop = -(tonumber(ARGV[2]) + 1)
local beyond = redis.call('ZRANGE', KEYS[1], 0, stop)
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, stop)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return beyond`;

/**
 *   sockets:<userId>   sorted set: socket id, scored by the time it opened
 *
 * A process that dies leaves its entries behind; they are the oldest, so the person's
 * next socket evicts them first (closing an unknown id is a no-op). No socket outlives
 * its session, so the key expires a session's lifetime after the last socket opened.
 * When Redis comes back after an outage (perhaps empty), each process adds the sockets
 * it holds again (onLost), and the cap applies to them as to new ones.
 */
export class RedisSocketRegistry implements SocketRegistry {
  readonly #redis: RedisCaller;
  readonly #prefix: string;
  readonly #logger: Logger;
  /** Whether the last call failed: one log line per outage, not one per socket. */
  #failing = false;

  constructor(redis: RedisCaller, prefix: string, logger: Logger) {
    this.#redis = redis;
    this.#prefix = `${prefix}sockets:`;
    this.#logger = logger;
  }

  onLost(handler: () => void): void {
    this.#redis.onRecovered?.(handler);
  }

  async add(userId: string, socketId: string, cap: number): Promise<string[]> {
    const beyond = await this.#bounded(
      'add',
      this.#redis.call((client) =>
        client.eval(ADD_SCRIPT, {
          keys: [this.#prefix + userId],
          arguments: [socketId, String(cap), String(SESSION_TTL_SECONDS * 1000)],
        }),
      ),
    );
    return Array.isArray(beyond) ? beyond.map(String) : [];
  }

  async remove(userId: string, socketId: string): Promise<void> {
    await this.#bounded(
      'remove',
      this.#redis.call((client) => client.zRem(this.#prefix + userId, socketId)),
    );
  }

  /** `work`'s result, or undefined (logged once per outage) when it fails or takes too long. */
  async #bounded<T>(what: string, work: Promise<T>): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), REDIS_TIMEOUT_MS);
    });
    try {
      const result = await Promise.race([work, timeout]);
      if (result === undefined) this.#failed(what, 'timed out');
      else if (this.#failing) {
        this.#failing = false;
        this.#logger.info('socket registry: Redis answers again; the cap is service-wide again');
      }
      return result;
    } catch (error) {
      this.#failed(what, error instanceof Error ? error.message : String(error));
      return undefined;
    } finally {
      clearTimeout(timer);
      // A late failure of the abandoned call must not become an unhandled rejection.
      work.catch(() => {});
    }
  }

  #failed(what: string, why: string): void {
    if (this.#failing) return;
    this.#failing = true;
    this.#logger.warn(
      `socket registry: ${what} failed (${why}); each process caps its own sockets until Redis answers`,
    );
  }
}
