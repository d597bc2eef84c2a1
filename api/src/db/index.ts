/**
 * The database: real PostgreSQL when DATABASE_URL is set, otherwise the embedded
 * PGlite in DATA_DIR/db. Both run the same knex migrations and queries.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { migrationSource } from './migrations/index.ts';

export interface DbOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** Connections in the pool (PostgreSQL only; PGlite has exactly one). */
  poolMax?: number;
}

export type Db = Knex;

/**
 * knex-pglite names the command after knex's method, and knex calls a delete `del`,
 * so a delete would answer a raw result instead of the row count pg gives.
 */
interface ResponseProcessor {
  processResponse(obj: { method?: string }, runner: unknown): unknown;
}
const PgLiteBase = ClientPgLite as unknown as new (config: Knex.Config) => ResponseProcessor;

class PgLiteClient extends PgLiteBase {
  override processResponse(obj: { method?: string }, runner: unknown): unknown {
    return super.processResponse(obj.method === 'del' ? { ...obj, method: 'delete' } : obj, runner);
  }
}

export function createDb({ databaseUrl, dataDir, poolMax = 10 }: DbOptions): Db {
  if (databaseUrl) {
    return knexFactory({
      client: 'pg',
      connection: databaseUrl,
      pool: { min: 0, max: poolMax },
    });
  }
  const filename = path.join(dataDir, 'db');
  mkdirSync(filename, { recursive: true });
  // pg_trgm backs the substring search of users, as on a real server.
  const pglite = new PGlite(filename, { extensions: { pg_trgm } });
  return knexFactory({
    client: PgLiteClient as unknown as typeof Knex.Client,
    dialect: 'postgres',
    connection: (() => ({ pglite })) as unknown as Knex.StaticConnectionConfig,
  });
}

/** Brings the schema up to date; safe to call from several processes at once. */
export async function migrate(db: Db): Promise<void> {
  await db.migrate.latest({ migrationSource });
}

/** PostgreSQL's unique_violation, with the name of the violated constraint. */
export function uniqueViolation(error: unknown): string | null {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' ? (e.constraint ?? '') : null;
}
