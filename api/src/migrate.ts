/**
 * `npm run migrate`: brings the database's schema up to this version's and exits (issue 22,
 * item 3), so an orchestrator can run migrations as a one-off job before it starts or updates
 * the API replicas. The API still migrates at start (nothing to do after this); several of
 * either at once take turns on PostgreSQL's advisory lock (db/index.ts).
 *
 * Reads the API's own environment (DATABASE_URL, or the embedded database in DATA_DIR) and
 * waits for the database as start-up does (STARTUP_WAIT_MS). Prints what it ran; on failure one
 * line naming what to fix, and exit code 1.
 */
import { ConfigError, loadConfig } from './config.ts';
import { createDb, migrate } from './db/index.ts';
import { createLogger } from './logger.ts';
import { prepareDataDir } from './privateFiles.ts';
import { StartupError, waitForServices } from './startup/waitForServices.ts';

async function main(): Promise<void> {
  process.umask(0o077);
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  // Only the database matters here: Redis is the replicas' business.
  await waitForServices({ ...config, redisUrl: null }, logger);
  if (!config.databaseUrl) await prepareDataDir(config.dataDir);
  const db = createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    // Only under migrate()'s lock: knex creates its own tables on a fresh database when it first
    // looks, and two processes doing that at once collide.
    const ran = await migrate(db);
    const where = config.databaseUrl ? 'PostgreSQL' : `the embedded database in ${config.dataDir}/db`;
    // Another process taking its turn first leaves nothing for this one.
    if (ran.length === 0) console.log(`migrate: ${where} is up to date, nothing to run`);
    else
      console.log(
        `migrate: ${where} brought up to date; ${ran.length} migration(s) were pending: ${ran.join(', ')}`,
      );
  } finally {
    await db.destroy();
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    for (const problem of error.problems) process.stderr.write(`${problem}\n`);
  } else if (error instanceof StartupError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`migrate: failed: ${(error as Error).message ?? String(error)}\n`);
  }
  process.exit(1);
});
