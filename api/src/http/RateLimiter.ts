/**
 * Fixed-window rate limiting. Counters live in Redis when it is configured (so every
 * API process shares them) and in memory otherwise.
 */
import { RateLimitedError } from '../errors.ts';

/** Where hit counters live. */
export interface CounterStore {
  /** Adds one hit to `key` and returns the count and the ms left in its window. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
  /** The current count of `key` without adding a hit. */
  peek(key: string): Promise<{ count: number; resetInMs: number }>;
  /** Forgets `key` (a successful login clears its failures). */
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryCounterStore implements CounterStore {
  #windows = new Map<string, { count: number; resetAt: number }>();
  #sweeper: NodeJS.Timeout;

  constructor(sweepEveryMs = 60_000) {
    this.#sweeper = setInterval(() => this.#sweep(), sweepEveryMs);
    this.#sweeper.unref();
  }

  async hit(key: string, windowMs: number) {
    const now = Date.now();
    let entry = this.#windows.get(key);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + windowMs };
      this.#windows.set(key, entry);
    }
    entry.count += 1;
    return { count: entry.count, resetInMs: entry.resetAt - now };
  }

  async peek(key: string) {
    const entry = this.#windows.get(key);
    const now = Date.now();
    return entry && entry.resetAt > now
      ? { count: entry.count, resetInMs: entry.resetAt - now }
      : { count: 0, resetInMs: 0 };
  }

  async reset(key: string) {
    this.#windows.delete(key);
  }

  async close() {
    clearInterval(this.#sweeper);
    this.#windows.clear();
  }

  #sweep() {
    const now = Date.now();
    for (const [key, entry] of this.#windows) if (entry.resetAt <= now) this.#windows.delete(key);
  }
}

/** The few Redis commands the store needs (node-redis v5 client). */
export interface RedisLike {
  multi(): RedisMulti;
  get(key: string): Promise<string | null>;
  del(key: string): Promise<unknown>;
}

interface RedisMulti {
  get(key: string): RedisMulti;
  incr(key: string): RedisMulti;
  pExpire(key: string, ms: number, mode: 'NX'): RedisMulti;
  pTTL(key: string): RedisMulti;
  exec(): Promise<unknown[]>;
}

export class RedisCounterStore implements CounterStore {
  constructor(
    readonly redis: RedisLike,
    readonly prefix = 'rl:',
  ) {}

  async hit(key: string, windowMs: number) {
    const [count, , ttl] = await this.redis
      .multi()
      .incr(this.prefix + key)
      .pExpire(this.prefix + key, windowMs, 'NX')
      .pTTL(this.prefix + key)
      .exec();
    return { count: Number(count), resetInMs: Math.max(0, Number(ttl)) };
  }

  async peek(key: string) {
    const [count, ttl] = await this.redis
      .multi()
      .get(this.prefix + key)
      .pTTL(this.prefix + key)
      .exec();
    return { count: Number(count ?? 0), resetInMs: Math.max(0, Number(ttl)) };
  }

  async reset(key: string) {
    await this.redis.del(this.prefix + key);
  }

  async close() {}
}

/** One named limit: at most `max` hits per `windowMs` for each key. */
export interface Limit {
  name: string;
  max: number;
  windowMs: number;
}

export class RateLimiter {
  constructor(
    readonly store: CounterStore,
    /** Multiplies every limit's max (RATE_LIMIT_FACTOR). */
    readonly factor = 1,
  ) {}

  #max(limit: Limit): number {
    return Math.ceil(limit.max * this.factor);
  }

  /** Counts a hit; throws RATE_LIMITED (with Retry-After) once the limit is passed. */
  async consume(limit: Limit, key: string): Promise<void> {
    const { count, resetInMs } = await this.store.hit(`${limit.name}:${key}`, limit.windowMs);
    if (count > this.#max(limit)) {
      throw new RateLimitedError(Math.max(1, Math.ceil(resetInMs / 1000)));
    }
  }

  /** Throws RATE_LIMITED when `key` has used up its limit, without counting a hit. */
  async check(limit: Limit, key: string): Promise<void> {
    const { count, resetInMs } = await this.store.peek(`${limit.name}:${key}`);
    if (count >= this.#max(limit)) throw new RateLimitedError(Math.max(1, Math.ceil(resetInMs / 1000)));
  }

  async reset(limit: Limit, key: string): Promise<void> {
    await this.store.reset(`${limit.name}:${key}`);
  }
}

const MINUTE = 60_000;

/** The API's limits; per client address and per account. */
export const LIMITS = {
  loginPerIp: { name: 'login-ip', max: 100, windowMs: 15 * MINUTE },
  loginFailuresPerAccount: { name: 'login-account', max: 10, windowMs: 15 * MINUTE },
  registerPerIp: { name: 'register-ip', max: 50, windowMs: 60 * MINUTE },
  checkUsernamePerIp: { name: 'check-username-ip', max: 120, windowMs: MINUTE },
  forgotPasswordPerIp: { name: 'forgot-ip', max: 20, windowMs: 60 * MINUTE },
  forgotPasswordPerAccount: { name: 'forgot-account', max: 5, windowMs: 60 * MINUTE },
  resetPasswordPerIp: { name: 'reset-ip', max: 30, windowMs: 15 * MINUTE },
  // Typing in the search box sends a search per pause; this is well above a person's pace.
  searchPerUser: { name: 'search-user', max: 120, windowMs: MINUTE },
  friendRequestsPerUser: { name: 'friend-request-user', max: 60, windowMs: 60 * MINUTE },
} as const satisfies Record<string, Limit>;
