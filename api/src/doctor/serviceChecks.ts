/** The doctor's checks of the services the API uses: PostgreSQL and its migrations, Redis. */
import type { Config } from '../config.ts';
import { createDb, pendingMigrations } from '../db/index.ts';
import { endpointOf, probeDatabase, probeRedis, shortReason } from '../startup/reachable.ts';
import { type CheckResult, fail, pass, skip } from './report.ts';

/** DATABASE_URL answers, and every migration of this version has run. */
export async function databaseChecks(config: Readonly<Config>): Promise<CheckResult[]> {
  if (!config.databaseUrl) {
    const why = `DATABASE_URL unset: the embedded database in ${config.dataDir}/db, opened only by the app`;
    return [skip('Database', why), skip('Migrations', why)];
  }
  const at = endpointOf(config.databaseUrl, 5432);
  let version: string;
  try {
    version = await probeDatabase(config.databaseUrl);
  } catch (error) {
    return [
      fail(
        'Database',
        `cannot reach PostgreSQL at ${at} (${shortReason(error)})`,
        "check that the database is running (`docker compose ps db`) and DATABASE_URL's host, port, user, password and database name",
      ),
      skip('Migrations', 'the database is not reachable'),
    ];
  }
  const results = [pass('Database', `PostgreSQL ${version} at ${at}`)];
  const db = createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 1 });
  try {
    const pending = await pendingMigrations(db);
    results.push(
      pending.length === 0
        ? pass('Migrations', 'current')
        : fail(
            'Migrations',
            `${pending.length} pending (${pending.join(', ')})`,
            'start the app (`docker compose up -d app`): it runs them at start; if it does not come up, its log says why',
          ),
    );
  } catch (error) {
    results.push(
      fail(
        'Migrations',
        `cannot list them (${shortReason(error)})`,
        'check the database user may read the schema',
      ),
    );
  } finally {
    await db.destroy();
  }
  return results;
}

/** REDIS_URL answers a PING. */
export async function redisCheck(config: Readonly<Config>): Promise<CheckResult> {
  if (!config.redisUrl) return skip('Redis', 'REDIS_URL unset: one API process with the in-process bus');
  const at = endpointOf(config.redisUrl, 6379);
  try {
    return pass('Redis', `Redis ${await probeRedis(config.redisUrl)} at ${at}`);
  } catch (error) {
    return fail(
      'Redis',
      `cannot reach Redis at ${at} (${shortReason(error)})`,
      "check that Redis is running (`docker compose ps redis`) and REDIS_URL's host, port and password",
    );
  }
}
