/**
 * Bad input at start: each gives one clear line on stderr naming the variable or the
 * service and what to do, exit code 1, no stack trace; a database that comes up late is
 * waited for.
 */
import { randomBytes } from 'node:crypto';
import { type AddressInfo, createConnection, createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ChildApi, freePort } from '../testing/ChildApi.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The lines of stderr that are not the retry notices of the wait. */
function finalLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !line.includes('retrying'));
}

describe('the API at start', { timeout: 60_000 }, () => {
  it.each([
    ['a weak JWT_SECRET', { JWT_SECRET: 'change-me'.repeat(5) }, /^JWT_SECRET: too weak; use a random value/],
    ['a short JWT_SECRET', { JWT_SECRET: 'secret' }, /^JWT_SECRET: must be at least 32 characters$/],
    [
      'TURN_URLS without its secret',
      { TURN_URLS: 'turn:turn.example.com:3478' },
      /^TURN_SECRET: must be set when TURN_URLS is set/,
    ],
    [
      'a PUBLIC_URL without scheme',
      { PUBLIC_URL: 'voice.example.com' },
      /^PUBLIC_URL: must start with http:\/\/ or https:\/\//,
    ],
    [
      'an unset MEDIA_ANNOUNCED_IP on a public PUBLIC_URL',
      { PUBLIC_URL: 'https://voice.example.com' },
      /^MEDIA_ANNOUNCED_IP: must be set when PUBLIC_URL is public \(voice\.example\.com\)/,
    ],
  ])('refuses %s with one line naming it', async (_, env, line) => {
    const { code, stderr } = await ChildApi.failedStart(env);
    expect(code, stderr).toBe(1);
    expect(finalLines(stderr)).toHaveLength(1);
    expect(finalLines(stderr)[0]).toMatch(line);
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it('waits for a database that is down, then names DATABASE_URL', async () => {
    const port = await freePort();
    const { code, stderr } = await ChildApi.failedStart({
      DATABASE_URL: `postgres://postgres:${randomBytes(8).toString('hex')}@127.0.0.1:${port}/test`,
      STARTUP_WAIT_MS: '2000',
    });
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(
      new RegExp(`database not reachable yet at 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\), retrying`),
    );
    expect(finalLines(stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^DATABASE_URL: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\).*check that the database is running`,
        ),
      ),
    ]);
    // The password stays out of what is printed.
    expect(stderr).not.toMatch(/postgres:[0-9a-f]{16}@/);
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it('waits for Redis that is down, then names REDIS_URL', async () => {
    const port = await freePort();
    const { code, stderr } = await ChildApi.failedStart({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      STARTUP_WAIT_MS: '2000',
    });
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/Redis not reachable yet at 127\.0\.0\.1:\d+ \(ECONNREFUSED\), retrying/);
    expect(finalLines(stderr)).toEqual([
      expect.stringMatching(
        /^REDIS_URL: cannot reach Redis at 127\.0\.0\.1:\d+ \(ECONNREFUSED\).*check that Redis is running/,
      ),
    ]);
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it('starts once a database that comes up late answers', async () => {
    const target = new URL(DATABASE_URL);
    // A proxy that drops every connection for 2 s after the first one, then forwards to the real PostgreSQL.
    let forwardFrom = Number.POSITIVE_INFINITY;
    let dropped = 0;
    const proxy: Server = createServer((client) => {
      if (forwardFrom === Number.POSITIVE_INFINITY) forwardFrom = Date.now() + 2000;
      if (Date.now() < forwardFrom) {
        dropped += 1;
        client.destroy();
        return;
      }
      const upstream = createConnection(Number(target.port || 5432), target.hostname);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = new URL(DATABASE_URL);
    url.host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    let api: ChildApi | null = null;
    try {
      api = await ChildApi.start({ DATABASE_URL: url.toString() });
      expect((await fetch(`${api.baseUrl}/api/health`)).status).toBe(200);
      expect(dropped).toBeGreaterThan(0);
    } finally {
      await api?.stop();
      proxy.close();
    }
  });
});
