/**
 * Verified sessions and their people, kept in memory so that an authenticated request
 * costs neither a JWT verification nor a query.
 *
 * Whatever ends a session or changes a person (logout, password reset, account removal, a
 * profile change) is forgotten here at once and announced on the bus, so every API process
 * forgets it too. The bus may lose messages: while Redis is away the cache is not used, and
 * when it is back every process empties its cache and, once all have subscribed again, asks
 * the others to do the same (one of them may not have noticed a short pause). A short TTL
 * bounds whatever still slips through.
 *
 * A query that was under way while something was forgotten is answered but not remembered:
 * it may have read the row from before the change.
 */
import { authChangesChannel, type Bus, RECONNECT_MAX_DELAY_MS } from '@voice/bus';
import type { AuthChange } from '@voice/protocol';
import type { Logger } from '../logger.ts';
import type { UserRow } from '../users/UserRepository.ts';

/** A live session and its user. */
export interface AuthenticatedSession {
  user: UserRow;
  sessionId: string;
  /** When the token stops working (open sockets close then); null if it has no expiry. */
  expiresAt: Date | null;
}
/** What a verified session token says. */
export interface SessionClaims {
  sub: string;
  jti: string;
  /** Expiry, in seconds since the epoch. */
  exp: number;
}

/** The part of the Redis link the cache watches; absent with the in-process bus, which loses nothing. */
export interface BusHealth {
  /** False while Redis does not answer: other processes' messages may be missed. */
  readonly available: boolean;
  /** `handler` runs each time Redis answers again after an outage. */
  onRecovered(handler: () => void): () => void;
}

export interface SessionCacheOptions {
  bus: Bus;
  health?: BusHealth | null;
  logger: Logger;
  /** Most entries of each kind (tokens, sessions, people); the oldest go first. */
  maxEntries?: number;
  /** How long an entry is trusted without news, in ms. */
  ttlMs?: number;
  /** After Redis is back, how long the cache stays unused while subscriptions are renewed. */
  resyncDelayMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

/** Read before a query, handed back with its result: whether anything was forgotten since. */
export type CacheTicket = number;

interface Timed {
  /** Trusted until then (ms since the epoch). */
  until: number;
}
interface TokenEntry extends Timed {
  claims: SessionClaims;
}
interface UserEntry extends Timed {
  row: UserRow;
}
interface SessionEntry extends Timed {
  /** The person's entry when the session was verified: one forgotten since takes the session with it. */
  user: UserEntry;
  /** What authentication answers, made once. */
  session: AuthenticatedSession;
}

const DEFAULT_MAX_ENTRIES = 10_000;
const DEFAULT_TTL_MS = 30_000;

export class SessionCache {
  readonly #tokens = new Map<string, TokenEntry>();
  readonly #sessions = new Map<string, SessionEntry>();
  readonly #users = new Map<string, UserEntry>();
  readonly #bus: Bus;
  readonly #health: BusHealth | null;
  readonly #logger: Logger;
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #resyncDelayMs: number;
  readonly #now: () => number;
  /** Counts what was forgotten; a query's result is kept only if it did not move meanwhile. */
  #generation = 0;
  /** Unused until then, after an outage of the bus. */
  #quietUntil = 0;
  #unsubscribe: (() => Promise<void>) | null = null;
  #stopWatching: (() => void) | null = null;
  #flushTimer: NodeJS.Timeout | null = null;
  #closed = false;

  private constructor(options: SessionCacheOptions) {
    this.#bus = options.bus;
    this.#health = options.health ?? null;
    this.#logger = options.logger;
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    // By then every process has reconnected and subscribed again (as for presence's resync).
    this.#resyncDelayMs = options.resyncDelayMs ?? RECONNECT_MAX_DELAY_MS + 500;
    this.#now = options.now ?? Date.now;
  }

  /** A cache that hears the other processes' changes on the bus. */
  static async create(options: SessionCacheOptions): Promise<SessionCache> {
    const cache = new SessionCache(options);
    cache.#unsubscribe = await cache.#bus.subscribe(authChangesChannel, (change) => cache.#apply(change));
    cache.#stopWatching = cache.#health?.onRecovered(() => cache.#recovered()) ?? null;
    return cache;
  }

  /** How many entries of each kind are held (for tests and metrics). */
  get size(): { tokens: number; sessions: number; users: number } {
    return { tokens: this.#tokens.size, sessions: this.#sessions.size, users: this.#users.size };
  }

  /** The live session of a token whose verification is still trusted: no query, no signature check. */
  session(token: string): AuthenticatedSession | undefined {
    const now = this.#now();
    if (!this.#usable(now)) return undefined;
    const claims = this.#claims(token, now);
    if (!claims) return undefined;
    const entry = this.#fresh(this.#sessions, claims.jti, now);
    if (!entry || entry.session.user.id !== claims.sub) return undefined;
    return this.#fresh(this.#users, claims.sub, now) === entry.user ? entry.session : undefined;
  }

  /** The claims of a token verified before and not yet expired (its session may need a query). */
  claims(token: string): SessionClaims | undefined {
    const now = this.#now();
    return this.#usable(now) ? this.#claims(token, now) : undefined;
  }

  /** Take before querying; pass to `remember`. */
  ticket(): CacheTicket {
    return this.#generation;
  }

  /** Keeps a session the database confirmed, unless something was forgotten since `ticket`. */
  remember(token: string, claims: SessionClaims, row: UserRow, ticket: CacheTicket): void {
    const now = this.#now();
    if (ticket !== this.#generation || !this.#usable(now)) return;
    const until = now + this.#ttlMs;
    // Another session's entry for the person stays: nothing about them was forgotten since it was made.
    let user = this.#fresh(this.#users, row.id, now);
    if (!user) {
      user = { row, until };
      this.#put(this.#users, row.id, user);
    }
    const session = { user: user.row, sessionId: claims.jti, expiresAt: new Date(claims.exp * 1000) };
    this.#put(this.#tokens, token, { claims, until });
    this.#put(this.#sessions, claims.jti, { user, session, until });
  }

  /** A session ended (logout): forgotten here and on every process. */
  sessionEnded(sessionId: string): Promise<void> {
    return this.#announce({ type: 'session-ended', sessionId });
  }

  /** A person changed, or all their sessions ended: forgotten here and on every process. */
  userChanged(userId: string): Promise<void> {
    return this.#announce({ type: 'user-changed', userId });
  }

  /** Stops listening and forgets everything; idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopWatching?.();
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#forgetAll();
    await this.#unsubscribe?.();
  }

  // Never throws: the change is made already, and this process forgets it in any case.
  async #announce(change: AuthChange): Promise<void> {
    this.#apply(change);
    try {
      await this.#bus.publish(authChangesChannel, change);
    } catch (error) {
      this.#logger.error('session cache: could not tell the other processes', { change: change.type, error });
    }
  }

  #apply(change: AuthChange): void {
    this.#generation += 1;
    if (change.type === 'session-ended') this.#sessions.delete(change.sessionId);
    // The person's sessions refer to the entry deleted here, so they go with it.
    else if (change.type === 'user-changed') this.#users.delete(change.userId);
    else this.#forgetAll();
  }

  #recovered(): void {
    this.#forgetAll();
    this.#quietUntil = this.#now() + this.#resyncDelayMs;
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    // For a process that did not notice the outage (a short pause of Redis), so kept what it missed.
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = null;
      void this.#announce({ type: 'flush' });
    }, this.#resyncDelayMs);
    this.#flushTimer.unref();
  }

  #forgetAll(): void {
    this.#generation += 1;
    this.#tokens.clear();
    this.#sessions.clear();
    this.#users.clear();
  }

  #claims(token: string, now: number): SessionClaims | undefined {
    const entry = this.#fresh(this.#tokens, token, now);
    // The token's own expiry holds whatever the cache's TTL says.
    return entry && now < entry.claims.exp * 1000 ? entry.claims : undefined;
  }

  #usable(now: number): boolean {
    if (this.#closed) return false;
    return this.#health === null || (this.#health.available && now >= this.#quietUntil);
  }

  #fresh<E extends Timed>(map: Map<string, E>, key: string, now: number): E | undefined {
    const entry = map.get(key);
    if (entry === undefined) return undefined;
    if (now < entry.until) return entry;
    map.delete(key);
    return undefined;
  }

  #put<E>(map: Map<string, E>, key: string, entry: E): void {
    // Re-inserted at the end: a Map iterates in insertion order, so the first key is the oldest.
    map.delete(key);
    if (map.size >= this.#maxEntries) {
      const oldest = map.keys().next();
      if (!oldest.done) map.delete(oldest.value);
    }
    map.set(key, entry);
  }
}
