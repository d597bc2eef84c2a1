import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RedisLink } from '@voice/bus';
import { MemoryLogger, RedisProcess } from '@voice/bus/testing';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db, migrate } from '../db/index.ts';
import { Readiness } from './Readiness.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const admin = knexFactory({ client: 'pg', connection: DATABASE_URL, pool: { min: 0, max: 1 } });
// A database of its own: the test removes a migration's record, which others must not see.
const name = `voice_ready_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
let db: Db;
/** A media servers' directory that has listened long enough. */
const settled = { settled: true };

beforeAll(async () => {
  await admin.raw(`CREATE DATABASE ${name}`);
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  db = createDb({ databaseUrl: url.toString(), dataDir: tmpdir(), statementTimeoutMs: 5000 });
  await migrate(db);
}, 60_000);

afterAll(async () => {
  await db?.destroy();
  await admin.raw(`DROP DATABASE IF EXISTS ${name}`);
  await admin.destroy();
});

describe('Readiness', () => {
  it('check() is ok with the database answering, its migrations run and no Redis configured', async () => {
    const readiness = new Readiness({ db, redis: null, mediaServers: settled, logger: new MemoryLogger() });
    expect(await readiness.check()).toEqual({
      ok: true,
      checks: { database: 'ok', migrations: 'ok', redis: 'not used', mediaServers: 'ok' },
      notReady: [],
    });
  });

  it('check() is not ready until the media servers have been listened to long enough', async () => {
    const logger = new MemoryLogger();
    const mediaServers = { settled: false };
    const readiness = new Readiness({ db, redis: null, mediaServers, logger });
    expect(await readiness.check()).toEqual({
      ok: false,
      checks: {
        database: 'ok',
        migrations: 'ok',
        redis: 'not used',
        mediaServers: 'listening for their announcements',
      },
      notReady: ['mediaServers'],
    });
    mediaServers.settled = true;
    expect(await readiness.check()).toMatchObject({ ok: true, notReady: [] });
    expect(logger.lines.at(-1)).toMatchObject({ level: 'info', message: 'ready again' });
  });

  it('check() names a migration of this version that has not run', async () => {
    const logger = new MemoryLogger();
    const readiness = new Readiness({ db, redis: null, mediaServers: settled, logger });
    const newest = await db('knex_migrations').orderBy('id', 'desc').first();
    await db('knex_migrations').where({ id: newest.id }).delete();
    try {
      expect(await readiness.check()).toMatchObject({
        ok: false,
        checks: { database: 'ok', migrations: '1 pending' },
        notReady: ['migrations'],
      });
      expect(logger.lines).toContainEqual(expect.objectContaining({ message: 'not ready: migrations' }));
    } finally {
      await db('knex_migrations').insert(newest);
    }
    expect((await readiness.check()).ok).toBe(true);
    expect(logger.lines.at(-1)).toMatchObject({ level: 'info', message: 'ready again' });
  });

  it('check() shares one query among probes that arrive together', async () => {
    const readiness = new Readiness({ db, redis: null, mediaServers: settled, logger: new MemoryLogger() });
    const first = readiness.check();
    expect(readiness.check()).toBe(first);
    expect((await first).ok).toBe(true);
    expect(readiness.check()).not.toBe(first);
  });

  it('check() names Redis while the link to it is down', async () => {
    const redis = await RedisProcess.start();
    const logger = new MemoryLogger();
    const link = await RedisLink.connect(redis.url, logger);
    try {
      const readiness = new Readiness({ db, redis: link, mediaServers: settled, logger });
      expect(await readiness.check()).toMatchObject({ ok: true, checks: { redis: 'ok' } });
      await redis.stop();
      // The link notices the closed connection by itself; no call is needed.
      await expect.poll(() => link.available, { timeout: 10_000 }).toBe(false);
      expect(await readiness.check()).toMatchObject({
        ok: false,
        checks: { database: 'ok', redis: 'not answering' },
        notReady: ['redis'],
      });
    } finally {
      await link.close();
      await redis.stop();
    }
  });

  it('check() works on the embedded database (PGlite)', { timeout: 200_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'voice-ready-'));
    const embedded = createDb({
      databaseUrl: null,
      dataDir,
      statementTimeoutMs: 1000,
      acquireTimeoutMs: 1000,
    });
    try {
      await migrate(embedded);
      const readiness = new Readiness({
        db: embedded,
        redis: null,
        mediaServers: settled,
        logger: new MemoryLogger(),
      });
      expect(await readiness.check()).toMatchObject({ ok: true, notReady: [] });
    } finally {
      await embedded.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
