/**
 * `npm run migrate` as an orchestrator's one-off job runs it (issue 22, item 3): the real
 * script in a process of its own against a fresh database on the shared PostgreSQL.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationSource } from './db/migrations/index.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dataDir = mkdtempSync(path.join(tmpdir(), 'voice-migrate-'));
const admin = knexFactory({ client: 'pg', connection: DATABASE_URL, pool: { min: 0, max: 1 } });
const made: string[] = [];

afterAll(async () => {
  for (const name of made) await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

async function freshDatabase(): Promise<string> {
  const name = `voice_migcmd_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await admin.raw(`CREATE DATABASE ${name}`);
  made.push(name);
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `tsx api/src/migrate.ts` as `npm run migrate` runs it, with only `env` besides PATH. */
function runMigrate(env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'api/src/migrate.ts'],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function migrationsRun(databaseUrl: string): Promise<string[]> {
  const db = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  try {
    return (await db('knex_migrations').orderBy('id').select('name')).map(
      (row: { name: string }) => row.name,
    );
  } finally {
    await db.destroy();
  }
}

describe('npm run migrate', () => {
  it('runs every migration once, says which, and finds nothing to do the next time', async () => {
    const databaseUrl = await freshDatabase();
    const names = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m));
    const first = await runMigrate({ DATABASE_URL: databaseUrl });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(
      `PostgreSQL brought up to date; ${names.length} migration(s) were pending: `,
    );
    for (const name of names) expect(first.stdout).toContain(name);
    expect(await migrationsRun(databaseUrl)).toEqual(names);

    const again = await runMigrate({ DATABASE_URL: databaseUrl });
    expect(again).toMatchObject({ code: 0, stdout: 'migrate: PostgreSQL is up to date, nothing to run\n' });
  }, 120_000);

  it('lets two jobs run at once on a fresh database (they take turns)', async () => {
    const databaseUrl = await freshDatabase();
    const runs = await Promise.all([
      runMigrate({ DATABASE_URL: databaseUrl }),
      runMigrate({ DATABASE_URL: databaseUrl }),
    ]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const names = await migrationsRun(databaseUrl);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBe((await migrationSource.getMigrations([])).length);
  }, 120_000);

  it('fails with one line naming DATABASE_URL when it is wrong or the database cannot be reached', async () => {
    const scheme = await runMigrate({ DATABASE_URL: 'mysql://root@127.0.0.1/voice' });
    expect(scheme).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'DATABASE_URL: must start with postgres:// or postgresql://\n',
    });
    const unreachable = await runMigrate({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/voice',
      STARTUP_WAIT_MS: '1000',
      LOG_LEVEL: 'error',
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trim().split('\n').at(-1)).toMatch(
      /^DATABASE_URL: cannot reach PostgreSQL at 127\.0\.0\.1:1 \(ECONNREFUSED\) \(waited up to 1 s\)/,
    );
  }, 60_000);
});
