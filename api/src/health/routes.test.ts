import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from '../testing/TestServer.ts';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

describe('health routes', () => {
  it.each(['/health', '/health/live'])('GET %s answers 200 {ok: true}, never cached', async (route) => {
    const res = await server.request('GET', route);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('GET /health/ready answers 503 until the media servers have been listened to, then 200 with each part checked', async () => {
    const first = await server.request('GET', '/health/ready');
    if (first.status === 503) {
      // Within the first announce interval of a process no media server announced to.
      expect(first.body).toMatchObject({
        ok: false,
        checks: { mediaServers: 'listening for their announcements' },
        notReady: ['mediaServers'],
      });
    }
    await expect
      .poll(async () => (await server.request('GET', '/health/ready')).status, { timeout: 5_000 })
      .toBe(200);
    const res = await server.request('GET', '/health/ready');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      ok: true,
      checks: {
        database: 'ok',
        migrations: 'ok',
        redis: process.env.REDIS_URL ? 'ok' : 'not used',
        mediaServers: 'ok',
      },
      notReady: [],
    });
  });

  it('takes no input: a query string is ignored, another method is not found', async () => {
    expect((await server.request('GET', '/health/ready?check=all&timeout=99999')).status).toBe(200);
    for (const route of ['/health', '/health/live', '/health/ready']) {
      // As for every API path: the catch-all answers a method a route lacks.
      const post = await server.request('POST', route, { body: { ok: false } });
      expect(post.status).toBe(404);
      expect(post.body.error.code).toBe('NOT_FOUND');
      expect((await server.request('DELETE', route)).status).toBe(404);
    }
    const head = await fetch(`${server.baseUrl}/api/health/ready`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});
