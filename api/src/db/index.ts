/**
 * The database: real PostgreSQL when DATABASE_URL is set, otherwise the embedded
 * PGlite in DATA_DIR/db. Both run the same knex migrations and queries.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
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
  return knexFactory({
    client: ClientPgLite as unknown as typeof Knex.Client,
    dialect: 'postgres',
    connection: { filename } as Knex.StaticConnectionConfig,
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
