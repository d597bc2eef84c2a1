/**
 * Whether this process can serve requests now, for an orchestrator's readiness probe and a load
 * balancer's health check: the database answers a query on `users` (which nearly every request
 * reads) within a short deadline, its schema is this version's, Redis answers when it is
 * configured, and the media servers' announcements have been listened to long enough to know
 * them (MediaServers.settled: a replica started during a roll takes no join it would answer
 * "Voice rooms are unavailable"). Liveness is another question (`/health`): a process whose
 * database is locked or overloaded is not broken, and restarting it would only add to the load.
 */
import type { ReadinessResponse } from '@voice/protocol';
import { type Db, pendingMigrations } from '../db/index.ts';
import { databaseUnavailable } from '../db/unavailable.ts';
import type { Logger } from '../logger.ts';

/** The part of the Redis link readiness watches. */
export interface RedisHealth {
  /** False from a call that failed or a lost connection until Redis answers again. */
  readonly available: boolean;
}

/** The part of the media servers' directory readiness watches. */
export interface MediaServersHealth {
  /** Whether it has listened long enough to know the live media servers. */
  readonly settled: boolean;
}

export interface ReadinessOptions {
  db: Db;
  /** Null when REDIS_URL is unset (the in-process bus). */
  redis: RedisHealth | null;
  mediaServers: MediaServersHealth;
  logger: Logger;
  /** How long the database may take to answer; probes usually give up after a few seconds. */
  timeoutMs?: number;
}

type Part = ReadinessResponse['notReady'][number];

// Touches the table of sessions' people, so a lock on it counts, not only the server's presence.
const READY_SQL = 'SELECT 1 FROM users LIMIT 1';
const DEFAULT_TIMEOUT_MS = 1000;
const OK = 'ok';
const NOT_USED = 'not used';
// Migrations are listed in the database: without one, they are not known either way.
const NOT_CHECKED = 'not checked';

class DeadlineError extends Error {}

export class Readiness {
  readonly #db: Db;
  readonly #redis: RedisHealth | null;
  readonly #mediaServers: MediaServersHealth;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  /** Once this version's migrations have all run, they stay run. */
  #migrated = false;
  /** The check under way: probes that arrive meanwhile share it rather than pile up queries. */
  #running: Promise<ReadinessResponse> | null = null;
  /** What the last check found missing, to log a change once rather than every probe. */
  #lastNotReady = '';

  constructor({ db, redis, mediaServers, logger, timeoutMs = DEFAULT_TIMEOUT_MS }: ReadinessOptions) {
    this.#db = db;
    this.#redis = redis;
    this.#mediaServers = mediaServers;
    this.#logger = logger;
    this.#timeoutMs = timeoutMs;
  }

  check(): Promise<ReadinessResponse> {
    this.#running ??= this.#check().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #check(): Promise<ReadinessResponse> {
    const checks: ReadinessResponse['checks'] = {
      database: OK,
      migrations: OK,
      redis: this.#redis === null ? NOT_USED : this.#redis.available ? OK : 'not answering',
      mediaServers: this.#mediaServers.settled ? OK : 'listening for their announcements',
    };
    const details: Record<string, string> = {};
    try {
      await this.#withDeadline(this.#db.raw(READY_SQL));
    } catch (error) {
      checks.database = this.#reason(error);
      details.database = String((error as Error).message ?? error);
    }
    if (checks.database !== OK) {
      checks.migrations = NOT_CHECKED;
    } else if (!this.#migrated) {
      try {
        const pending = await this.#withDeadline(pendingMigrations(this.#db));
        this.#migrated = pending.length === 0;
        if (!this.#migrated) checks.migrations = `${pending.length} pending`;
      } catch (error) {
        checks.migrations = this.#reason(error);
        details.migrations = String((error as Error).message ?? error);
      }
    }
    const notReady = (Object.keys(checks) as Part[]).filter(
      (part) => ![OK, NOT_USED, NOT_CHECKED].includes(checks[part]),
    );
    this.#logChange(notReady, checks, details);
    return { ok: notReady.length === 0, checks, notReady };
  }

  /** Public words only: the endpoint is reachable from outside, the details go to the log. */
  #reason(error: unknown): string {
    if (error instanceof DeadlineError) return `no answer within ${this.#timeoutMs} ms`;
    return databaseUnavailable(error) ? 'unavailable' : 'failing';
  }

  async #withDeadline<T>(query: PromiseLike<T>): Promise<T> {
    // A knex builder runs its query on every then(): made a promise, it runs once.
    const work = Promise.resolve(query);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError()), this.#timeoutMs);
    });
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
      // Given up on, it still ends by the query deadlines; its outcome is of no interest.
      work.catch(() => {});
    }
  }

  #logChange(notReady: Part[], checks: ReadinessResponse['checks'], details: Record<string, string>): void {
    const key = notReady.join(',');
    if (key === this.#lastNotReady) return;
    this.#lastNotReady = key;
    if (notReady.length === 0) this.#logger.info('ready again');
    else this.#logger.warn(`not ready: ${key}`, { checks, details });
  }
}
