/**
 * Start-up's wait for the services a deployment names: a database or Redis started by the
 * same `docker compose up` may take a while. Each attempt that fails logs one line; when the
 * time is up, a StartupError names the variable and what to check, for main.ts to print.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import {
  endpointOf,
  isDatabaseRefusal,
  probeDatabase,
  probeRedis,
  UnreachableError,
  waitUntilReachable,
} from './reachable.ts';

/** A start-up failure an operator fixes: printed as one line, without a stack. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** Resolves once DATABASE_URL and REDIS_URL (those that are set) answer; rejects with a StartupError. */
export async function waitForServices(config: Readonly<Config>, logger: Logger): Promise<void> {
  const seconds = Math.round(config.startupWaitMs / 1000);
  if (config.databaseUrl) {
    const at = endpointOf(config.databaseUrl, 5432);
    const probe = () => probeDatabase(config.databaseUrl as string);
    await wait('database', at, probe, config, logger, isDatabaseRefusal).catch((error: unknown) => {
      throw failure(
        error,
        (reason) =>
          `DATABASE_URL: cannot reach PostgreSQL at ${at} (${reason}) (waited up to ${seconds} s): check that the database is running and that DATABASE_URL's host, port, user, password and database name are right`,
      );
    });
  }
  if (config.redisUrl) {
    const at = endpointOf(config.redisUrl, 6379);
    await wait('Redis', at, () => probeRedis(config.redisUrl as string), config, logger).catch(
      (error: unknown) => {
        throw failure(
          error,
          (reason) =>
            `REDIS_URL: cannot reach Redis at ${at} (${reason}) (waited up to ${seconds} s): check that Redis is running and that REDIS_URL's host, port and password are right (or unset REDIS_URL for a single process)`,
        );
      },
    );
  }
}

function wait(
  what: string,
  at: string,
  probe: () => Promise<unknown>,
  config: Readonly<Config>,
  logger: Logger,
  isFinal?: (error: unknown) => boolean,
): Promise<unknown> {
  return waitUntilReachable(probe, {
    timeoutMs: config.startupWaitMs,
    isFinal,
    onRetry: (reason, delayMs) =>
      logger.warn(
        `${what} not reachable yet at ${at} (${reason}), retrying in ${(delayMs / 1000).toFixed(1)} s…`,
      ),
  });
}

function failure(error: unknown, message: (reason: string) => string): Error {
  return error instanceof UnreachableError ? new StartupError(message(error.reason)) : (error as Error);
}
