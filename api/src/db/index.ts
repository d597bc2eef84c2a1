/**
 * The database: real PostgreSQL when DATABASE_URL is set, otherwise the embedded
 * PGlite in DATA_DIR/db. Both run the same knex migrations and queries.
 */
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import type pg from 'pg';
import { makeTreePrivate, privateDirSync } from '../privateFiles.ts';
import { migrationSource } from './migrations/index.ts';

export interface DbOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** Connections in the pool (PostgreSQL only; PGlite has exactly one). */
  poolMax?: number;
  /**
   * PostgreSQL only: the longest one statement may run, lock waits included (its
   * `statement_timeout`); unset: no limit. PGlite is this process's alone: nothing else can
   * hold its locks or its one connection.
   */
  statementTimeoutMs?: number;
  /** PostgreSQL only: the longest a query waits for a free connection, connecting included; unset: knex's minute. */
  acquireTimeoutMs?: number;
}

export type Db = Knex;

/**
 * knex-pglite names the command after knex's method, and knex calls a delete `del`,
 * so a delete would answer a raw result instead of the row count pg gives.
 */
interface PgLiteClientBase {
  processResponse(obj: { method?: string }, runner: unknown): unknown;
  _acquireOnlyConnection(): Promise<PGlite>;
}
const PgLiteBase = ClientPgLite as unknown as new (config: Knex.Config) => PgLiteClientBase;

/** Per database: its files made private once it has opened (see createDb). */
const madePrivate = new WeakMap<PGlite, Promise<void>>();

class PgLiteClient extends PgLiteBase {
  override processResponse(obj: { method?: string }, runner: unknown): unknown {
    return super.processResponse(obj.method === 'del' ? { ...obj, method: 'delete' } : obj, runner);
  }

  /** No query runs before the database's files are private. */
  override async _acquireOnlyConnection(): Promise<PGlite> {
    const pglite = await super._acquireOnlyConnection();
    await madePrivate.get(pglite);
    return pglite;
  }
}

export function createDb({
  databaseUrl,
  dataDir,
  poolMax = 10,
  statementTimeoutMs,
  acquireTimeoutMs,
}: DbOptions): Db {
  if (databaseUrl) {
    return knexFactory({
      client: 'pg',
      connection: pgConnection(databaseUrl, statementTimeoutMs, acquireTimeoutMs),
      ...(acquireTimeoutMs ? { acquireConnectionTimeout: acquireTimeoutMs } : {}),
      pool: {
        min: 0,
        max: poolMax,
        validate: usableConnection,
      },
    });
  }
  const filename = path.join(dataDir, 'db');
  privateDirSync(filename);
  // pg_trgm backs the substring search of users, as on a real server.
  const pglite = new PGlite(filename, { extensions: { pg_trgm } });
  // A new database comes out of PGlite's initdb with every file 0666 (its later files get
  // PostgreSQL's own 0600): tighten them before the first query.
  const ready = pglite.waitReady.then(() => makeTreePrivate(filename));
  // Awaited by the first query; a database that failed to open reports that error there instead.
  ready.catch(() => undefined);
  madePrivate.set(pglite, ready);
  return knexFactory({
    client: PgLiteClient as unknown as typeof Knex.Client,
    dialect: 'postgres',
    connection: (() => ({ pglite })) as unknown as Knex.StaticConnectionConfig,
    // The one connection waits for PGlite's first start (initdb in WebAssembly), which on a
    // small, busy machine takes well over knex's default minute.
    acquireConnectionTimeout: PGLITE_START_TIMEOUT_MS,
  });
}

const PGLITE_START_TIMEOUT_MS = 180_000;

// The server cancels a statement at its statement_timeout and says so. Only a server that does not
// answer at all (stopped, or cut off) needs the client to give up itself, a little later.
const CLIENT_DEADLINE_GRACE_MS = 1000;

/**
 * A connection still busy with a query its caller gave up on (the client-side deadline below,
 * on a server that stopped answering), or left inside a transaction whose ROLLBACK never got
 * through, is closed rather than lent out again.
 */
function usableConnection(connection: pg.Client & { readyForQuery?: boolean }): boolean {
  if (connection.readyForQuery === false) return false;
  const status = connection.getTransactionStatus?.();
  return status !== 'T' && status !== 'E';
}

/** node-postgres settings: the URL with the deadlines, which the server enforces per session. */
function pgConnection(
  databaseUrl: string,
  statementTimeoutMs: number | undefined,
  acquireTimeoutMs: number | undefined,
): Knex.PgConnectionConfig {
  const connection: Knex.PgConnectionConfig = { connectionString: databaseUrl };
  if (statementTimeoutMs) {
    connection.statement_timeout = statementTimeoutMs;
    connection.query_timeout = statementTimeoutMs + CLIENT_DEADLINE_GRACE_MS;
  }
  if (acquireTimeoutMs) connection.connectionTimeoutMillis = acquireTimeoutMs;
  return connection;
}

// Names the migration lock in pg_locks; the same in every process of the service.
const MIGRATION_LOCK_ID = 7_346_201;

// During a rolling upgrade a newer process migrates first and an older one keeps serving (or
// restarts) beside it: migrations it does not know of are the newer version's, not corruption.
const MIGRATE_OPTIONS = { migrationSource, disableMigrationsListValidation: true };

/**
 * Brings the schema up to date; safe to call from several processes at once. Resolves with the
 * names of the migrations this call ran (none when another process had run them).
 */
export async function migrate(db: Db): Promise<string[]> {
  if (db.client.config.client !== 'pg') {
    // PGlite lives inside this process, the only one that opens its data directory.
    const [, ran] = (await db.migrate.latest(MIGRATE_OPTIONS)) as [number, string[]];
    return ran;
  }
  // knex's own lock table is created by the first migration run, so two processes starting
  // on a fresh database race to create it (`relation "knex_migrations" already exists`).
  // A PostgreSQL advisory lock, held in a transaction on a connection of its own, makes them
  // take turns; it is released when the transaction ends, or when a process dies with it.
  // The migrations themselves run on a second connection of the same pool, without the
  // request deadlines: building an index on a big table may take minutes, and waiting for
  // another process's turn as long as its migrations last.
  const { connection } = db.client.config as { connection: string | Knex.PgConnectionConfig };
  const migrator = knexFactory({
    client: 'pg',
    connection: {
      connectionString: typeof connection === 'string' ? connection : connection.connectionString,
    },
    pool: { min: 0, max: 2 },
  });
  try {
    return await migrator.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK_ID]);
      const [, ran] = (await migrator.migrate.latest(MIGRATE_OPTIONS)) as [number, string[]];
      return ran;
    });
  } finally {
    await migrator.destroy();
  }
}

/**
 * The migrations this version knows of that the database has not run yet, by name, in order.
 * On a fresh database this creates knex's tables: call it after migrate(), never beside it.
 */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const [, pending] = (await db.migrate.list(MIGRATE_OPTIONS)) as [unknown[], string[]];
  return pending.map((migration) => migrationSource.getMigrationName(migration));
}

/** PostgreSQL's unique_violation, with the name of the violated constraint. */
export function uniqueViolation(error: unknown): string | null {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' ? (e.constraint ?? '') : null;
}
