/**
 * The parts every feature is built from, and what a feature hands back. Each feature folder
 * has a `wire.ts` that builds its services from an Infrastructure and returns a Wired:
 * createServices (services.ts) only composes them, the app mounts their routes and the app
 * socket their handlers, knowing no feature.
 */
import type Router from '@koa/router';
import { RedisLink } from '@voice/bus';
import type { Middleware } from 'koa';
import type { Config } from './config.ts';
import { createDb, type Db, migrate } from './db/index.ts';
import { RateLimiter } from './http/RateLimiter.ts';
import type { AuthState } from './http/requireAuth.ts';
import type { Logger } from './logger.ts';
import { AppMetrics } from './metrics/AppMetrics.ts';
import { prepareDataDir } from './privateFiles.ts';
import type { SocketHandlers, SocketLifecycle } from './socket/handlers.ts';
import type { Notifier } from './socket/Notifier.ts';
import { openStores, type Stores } from './stores.ts';

/** A feature's router as `router.routes()` gives it, for mounting under /api. */
export type Routes = ReturnType<Router['routes']>;

/** What no feature owns: the database, Redis and what lives in it, counters, logs. */
export interface Base {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  /** Redis when REDIS_URL is set (every call with a deadline and a degraded answer); null otherwise. */
  link: RedisLink | null;
  /** Every Redis-or-memory store, the bus among them. */
  stores: Stores;
  limiter: RateLimiter;
  /** This process's Prometheus registry and the counters features report to. */
  metrics: AppMetrics;
  /** Closes what opened it, after the features: limiter, Redis, then the database. */
  close(): Promise<void>;
}

/** The Base with what the first features add for all the others. */
export interface Infrastructure extends Base {
  /** Where every feature sends its events for people's tabs (and, some, as web pushes). */
  notifier: Notifier;
  /** Route middleware: a live session, or 401. */
  requireAuth: Middleware<AuthState>;
}

/** What a feature gives back beside its services. Every part is optional. */
export interface Wired {
  /** Routers mounted under /api (`router.routes()`), in the order the features are listed. */
  routes?: Routes[];
  /** Served after /api, outside it (uploaded files). */
  files?: Middleware[];
  /** The feature's requests on the app socket (socket/handlers.ts). */
  socketHandlers?: Partial<SocketHandlers>;
  /** Told of the app socket's connections that close. */
  socketLifecycle?: SocketLifecycle[];
  /** Closes what the feature owns; safe to call once the routes and sockets are shut. */
  close?(): Promise<void>;
}

/**
 * Opens the Base: the data directory, the database (migrated), Redis and the stores, the rate
 * limiter. What fails half-way is not closed: start-up gives up, and the process exits.
 */
export async function openBase(config: Readonly<Config>, logger: Logger): Promise<Base> {
  // DATA_DIR holds secrets: the service's alone, also what an older version left there.
  await prepareDataDir(config.dataDir);
  const db = createDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    acquireTimeoutMs: config.dbAcquireTimeoutMs,
  });
  await migrate(db);
  const metrics = new AppMetrics();
  const link = config.redisUrl ? await RedisLink.connect(config.redisUrl, logger) : null;
  const stores = await openStores(config, link, { logger, metrics });
  // With Redis the counters are shared by every API process; a Redis that does not answer
  // in time leaves each process counting on its own instead of holding the request.
  const limiter = new RateLimiter({
    factor: config.rateLimitFactor,
    redis: link?.client ?? null,
    prefix: `${config.redisPrefix}rl:`,
    logger,
  });
  return {
    config,
    logger,
    db,
    link,
    stores,
    limiter,
    metrics,
    async close() {
      await stores.presence.close();
      await stores.bus.close();
      await limiter.close();
      await link?.close();
      await db.destroy();
    },
  };
}
