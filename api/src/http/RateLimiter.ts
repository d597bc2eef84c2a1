/**
 * Rate limiting on rate-limiter-flexible. Counters live in Redis when it is configured (so
 * every API process shares them) and in memory otherwise. Every count is taken atomically
 * before the work it guards, so requests sent at once cannot pass a limit together.
 *
 * A Redis call that does not answer within `timeoutMs` (Redis down or hung) falls back to
 * a per-process memory limiter with the same limits (the library's insurance limiter). The
 * process then counts on its own for `retryRedisAfterMs` before it asks Redis again, so
 * requests keep their normal speed and stay limited, per process, while Redis is away.
 */

import type { Middleware } from 'koa';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible';
import { RateLimitedError } from '../errors.ts';
import type { Logger } from '../logger.ts';

/** One named limit: at most `max` hits per `windowMs` for each key. */
export interface Limit {
  name: string;
  max: number;
  windowMs: number;
  /**
   * Passing the limit locks the key for `firstMs`, twice as long for each further lock
   * within two `maxMs`, at most `maxMs`. Without it the key waits for the end of its window.
   */
  lockout?: { firstMs: number; maxMs: number };
}

export interface RateLimiterOptions {
  /** Multiplies every limit's max (RATE_LIMIT_FACTOR). */
  factor?: number;
  /** A connected node-redis v5 client; counters stay in this process without it. */
  redis?: object | null;
  /** Prefix of every Redis key. */
  prefix?: string;
  /** How long a Redis call may take before this process counts on its own. */
  timeoutMs?: number;
  /** How long the process then counts on its own before it tries Redis again. */
  retryRedisAfterMs?: number;
  logger?: Logger;
}

type Store = RateLimiterAbstract | RLWrapperTimeouts;

/** A limit's counters: in Redis (when configured) and in this process. */
interface Stores {
  shared: RLWrapperTimeouts | null;
  local: RateLimiterMemory;
}

// Long enough that a merely busy Redis (a loaded machine) does not split the count between
// Redis and each process's fallback; short enough that a hung one costs one request 0.5 s.
const DEFAULT_TIMEOUT_MS = 500;
const DEFAULT_RETRY_REDIS_AFTER_MS = 5000;
// One line per outage is enough; a line per request would flood the log.
const FALLBACK_LOG_EVERY_MS = 60_000;

export class RateLimiter {
  readonly factor: number;
  #options: RateLimiterOptions;
  #stores = new Map<string, Stores>();
  #redisAwayUntil = 0;
  #lastFallbackLog = 0;

  constructor(options: RateLimiterOptions = {}) {
    this.#options = options;
    this.factor = options.factor ?? 1;
  }

  /** Counts one hit; throws RATE_LIMITED (with Retry-After) once the limit is passed. */
  async consume(limit: Limit, key: string): Promise<void> {
    try {
      await this.#store(limit).consume(key);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      let waitMs = error.msBeforeNext;
      // Exactly one request crosses the limit (the count is atomic): it sets the lock.
      if (limit.lockout && error.consumedPoints === this.#max(limit) + 1) {
        waitMs = await this.#lock(limit, key);
      }
      throw new RateLimitedError(Math.max(1, Math.ceil(waitMs / 1000)));
    }
  }

  /** Gives back the hit of a request that turned out not to count (e.g. a good password). */
  async reward(limit: Limit, key: string): Promise<void> {
    await this.#quietly('reward', () => this.#store(limit).reward(key));
  }

  /** Forgets `key`'s hits and locks (a successful login clears its failures). */
  async reset(limit: Limit, key: string): Promise<void> {
    await this.#quietly('reset', async () => {
      await this.#store(limit).delete(key);
      if (limit.lockout) await this.#store(locksOf(limit)).delete(key);
    });
  }

  async close(): Promise<void> {
    this.#stores.clear();
  }

  #max(limit: Limit): number {
    return Math.ceil(limit.max * this.factor);
  }

  async #lock(limit: Limit, key: string): Promise<number> {
    const { firstMs, maxMs } = limit.lockout as NonNullable<Limit['lockout']>;
    const { consumedPoints: locks } = await this.#store(locksOf(limit)).penalty(key);
    const lockMs = Math.min(firstMs * 2 ** Math.max(0, locks - 1), maxMs);
    await this.#store(limit).block(key, Math.ceil(lockMs / 1000));
    return lockMs;
  }

  /** After a good answer a failed bookkeeping call must not fail the request. */
  async #quietly(what: string, call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.#options.logger?.error(`rate limit ${what} failed`, { error });
    }
  }

  #store(limit: Limit): Store {
    let stores = this.#stores.get(limit.name);
    if (!stores) {
      stores = this.#create(limit);
      this.#stores.set(limit.name, stores);
    }
    return stores.shared && Date.now() >= this.#redisAwayUntil ? stores.shared : stores.local;
  }

  #create(limit: Limit): Stores {
    const points = this.#max(limit);
    const duration = Math.ceil(limit.windowMs / 1000);
    const { redis, prefix = 'rl:', timeoutMs = DEFAULT_TIMEOUT_MS } = this.#options;
    const keyPrefix = `${prefix}${limit.name}`;
    if (!redis) return { shared: null, local: new RateLimiterMemory({ points, duration, keyPrefix }) };
    const local = new FallbackMemory({ points, duration, keyPrefix }, () => this.#onFallback());
    const shared = new RLWrapperTimeouts({
      limiter: new RateLimiterRedis({
        storeClient: redis,
        useRedisPackage: true,
        // While the connection is down, fall back at once instead of after the timeout.
        rejectIfRedisNotReady: true,
        points,
        duration,
        keyPrefix,
      }),
      timeoutMs,
      insuranceLimiter: local,
    });
    return { shared, local };
  }

  /** A consume went to the process's own counters: Redis failed or is still thought away. */
  #onFallback(): void {
    const now = Date.now();
    if (now < this.#redisAwayUntil) return;
    this.#redisAwayUntil = now + (this.#options.retryRedisAfterMs ?? DEFAULT_RETRY_REDIS_AFTER_MS);
    if (now - this.#lastFallbackLog < FALLBACK_LOG_EVERY_MS) return;
    this.#lastFallbackLog = now;
    this.#options.logger?.warn('rate limits: Redis did not answer in time; counting in this process');
  }
}

/** The per-process limiter used while Redis does not answer; tells when it is used. */
class FallbackMemory extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    readonly onUse: () => void,
  ) {
    super(options);
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>): Promise<RateLimiterRes> {
    this.onUse();
    return super.consume(...args);
  }
}

/** How many times a key of `limit` was locked lately. */
function locksOf(limit: Limit): Limit {
  const { maxMs } = limit.lockout as NonNullable<Limit['lockout']>;
  return { name: `${limit.name}-locks`, max: Number.MAX_SAFE_INTEGER, windowMs: 2 * maxMs };
}

/**
 * The part of a client address that names one client: an IPv4 address, or the /64 network
 * of an IPv6 one (one subscriber commonly holds a whole /64, so single addresses are free).
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1] as string;
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** The API's limits; per client address and per account. */
export const LIMITS = {
  // Every sign-in attempt from one address, whatever its outcome.
  loginPerIp: { name: 'login-ip', max: 100, windowMs: 15 * MINUTE },
  // The hard limit per address: failed sign-ins to any accounts.
  loginFailuresPerIp: { name: 'login-fail-ip', max: 50, windowMs: 60 * MINUTE },
  // Failed sign-ins to one account from one address. Other addresses (the owner's) are not
  // held back by it; a good password or a new password (a completed reset) clears it.
  loginFailuresPerAccount: {
    name: 'login-fail-account',
    max: 10,
    windowMs: DAY,
    lockout: { firstMs: 15 * MINUTE, maxMs: DAY },
  },
  registerPerIp: { name: 'register-ip', max: 50, windowMs: 60 * MINUTE },
  checkUsernamePerIp: { name: 'check-username-ip', max: 120, windowMs: MINUTE },
  forgotPasswordPerIp: { name: 'forgot-ip', max: 20, windowMs: 60 * MINUTE },
  forgotPasswordPerAccount: { name: 'forgot-account', max: 5, windowMs: 60 * MINUTE },
  resetPasswordPerIp: { name: 'reset-ip', max: 30, windowMs: 15 * MINUTE },
  // Typing in the search box sends a search per pause; this is well above a person's pace.
  searchPerUser: { name: 'search-user', max: 120, windowMs: MINUTE },
  friendRequestsPerUser: { name: 'friend-request-user', max: 60, windowMs: 60 * MINUTE },
  profilePerUser: { name: 'profile-user', max: 60, windowMs: MINUTE },
  // An upload costs real CPU, so it gets the tightest.
  avatarPerUser: { name: 'avatar-user', max: 20, windowMs: 10 * MINUTE },
  // Each try checks a password: a stolen session must not become a way to guess it.
  removeAccountPerUser: { name: 'remove-account-user', max: 5, windowMs: 15 * MINUTE },
  // Browsers cache credentials for 23 h; this leaves room for many tabs and reloads, while
  // a stolen session cannot mint relay credentials by the thousand.
  turnCredentialsPerUser: { name: 'turn-credentials-user', max: 60, windowMs: 60 * MINUTE },
  // One per (re)connect of each tab; reconnects wait 1 to 5 s, so this covers ten tabs
  // retrying at the fastest steady pace.
  socketTicketsPerUser: { name: 'socket-ticket-user', max: 120, windowMs: MINUTE },
  roomCreatePerUser: { name: 'room-create-user', max: 30, windowMs: 60 * MINUTE },
  // Each join mints a room token and may check a password; a reconnecting room rejoins a few times.
  roomJoinPerUser: { name: 'room-join-user', max: 60, windowMs: MINUTE },
  // Password tries at one room by one person; a right password gives its try back.
  roomPasswordPerUserRoom: { name: 'room-password-user-room', max: 10, windowMs: 15 * MINUTE },
  roomInvitesPerUser: { name: 'room-invite-user', max: 60, windowMs: 60 * MINUTE },
} as const satisfies Record<string, Limit>;

/** Route middleware: counts one request of the signed-in person against `limit` (after requireAuth). */
export function perUserLimit(limiter: RateLimiter, limit: Limit): Middleware<{ user: { id: string } }> {
  return async (ctx, next) => {
    await limiter.consume(limit, ctx.state.user.id);
    await next();
  };
}
