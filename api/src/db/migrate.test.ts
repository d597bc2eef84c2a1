import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { describe, expect, it } from 'vitest';
import { createDb, migrate } from './index.ts';
import { migrationSource } from './migrations/index.ts';

// A fresh database per run on the shared PostgreSQL, dropped afterwards.
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PROCESSES = 4;

async function withFreshDatabase(run: (url: string) => Promise<void>): Promise<void> {
  const name = `voice_mig_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = knexFactory({ client: 'pg', connection: DATABASE_URL, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`CREATE DATABASE ${name}`);
    const url = new URL(DATABASE_URL);
    url.pathname = `/${name}`;
    await run(url.toString());
  } finally {
    await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.destroy();
  }
}

describe('migrate()', () => {
  it('lets several API processes start at once on a fresh database', { timeout: 60_000 }, async () => {
    const expected = (await migrationSource.getMigrations([])).length;
    for (let round = 0; round < 3; round++) {
      await withFreshDatabase(async (databaseUrl) => {
        // One pool per process, as separate processes would have.
        const dbs = Array.from({ length: PROCESSES }, () => createDb({ databaseUrl, dataDir: tmpdir() }));
        try {
          const outcomes = await Promise.allSettled(dbs.map((db) => migrate(db)));
          const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
          expect(failures).toEqual([]);
          for (const db of dbs) {
            const rows = await db('knex_migrations').count<{ count: string }[]>({ count: '*' });
            expect(Number(rows[0]?.count)).toBe(expected);
            // The lock was released: a later start migrates (nothing) without waiting.
            await migrate(db);
          }
        } finally {
          await Promise.all(dbs.map((db) => db.destroy()));
        }
      });
    }
  });

  it('starts beside a newer version that has already run a migration it does not know', async () => {
    await withFreshDatabase(async (databaseUrl) => {
      const db = createDb({ databaseUrl, dataDir: tmpdir() });
      try {
        await migrate(db);
        // What a newer image's migration leaves behind.
        await db('knex_migrations').insert({
          name: '29991231235959_from_a_newer_version',
          batch: 99,
          migration_time: new Date(),
        });
        await expect(migrate(db)).resolves.toEqual([]);
        expect(await db('users').count()).toEqual([{ count: '0' }]);
      } finally {
        await db.destroy();
      }
    });
  });

  it('migrates the embedded database (PGlite) as before', { timeout: 200_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'voice-mig-'));
    const db = createDb({ databaseUrl: null, dataDir });
    try {
      await migrate(db);
      await migrate(db);
      expect(await db.schema.hasTable('users')).toBe(true);
      const rows = await db('knex_migrations').count<{ count: string | number }[]>({ count: '*' });
      expect(Number(rows[0]?.count)).toBe((await migrationSource.getMigrations([])).length);
    } finally {
      await db.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
