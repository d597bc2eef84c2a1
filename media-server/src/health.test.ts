/**
 * /health/live and /health/ready of a media server (issue 22, item 3): a process of its own on a
 * Redis of the test's own (stopped and started again under it), and a MediaServer in this
 * process that is told to close.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryBus, RedisLink } from '@voice/bus';
import { RedisProcess } from '@voice/bus/testing';
import { MEDIA_HEALTH_PATHS, type MediaReadinessResponse } from '@voice/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMediaConfig } from './config.ts';
import { answerHealth } from './health.ts';
import { MediaServer } from './MediaServer.ts';
import { MediaServerChild } from './testing/MediaServerChild.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function ready(base: string): Promise<{ status: number; body: MediaReadinessResponse }> {
  const response = await fetch(`${base}${MEDIA_HEALTH_PATHS.ready}`);
  return { status: response.status, body: (await response.json()) as MediaReadinessResponse };
}

describe('a media server process of its own', () => {
  let server: MediaServerChild | undefined;
  let redis: RedisProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
  });

  it('is live while it serves, ready only while Redis answers, and refuses other methods', async () => {
    redis = await RedisProcess.start();
    server = await MediaServerChild.start({
      redisUrl: redis.url,
      redisPrefix: `test:${randomUUID()}:`,
      rtcPorts: { min: 48300, max: 48349 },
    });
    const base = `http://127.0.0.1:${server.port}`;

    const live = await fetch(`${base}${MEDIA_HEALTH_PATHS.live}`);
    expect(live.status).toBe(200);
    const { id } = (await live.json()) as { ok: boolean; id: string };
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await ready(base)).toEqual({
      status: 200,
      body: { ok: true, id, checks: { workers: 'ok', redis: 'ok', closing: 'ok' }, notReady: [] },
    });
    // The query string does not matter; HEAD answers the same status without a body.
    expect((await fetch(`${base}${MEDIA_HEALTH_PATHS.ready}?probe=kubelet`)).status).toBe(200);
    const head = await fetch(`${base}${MEDIA_HEALTH_PATHS.ready}`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    // The API's probe still finds the id and the load where it looks.
    const legacy = (await (await fetch(`${base}${MEDIA_HEALTH_PATHS.legacy}`)).json()) as Record<
      string,
      unknown
    >;
    expect(legacy).toMatchObject({ ok: true, id, load: { workers: 1 } });

    for (const method of ['POST', 'PUT', 'DELETE']) {
      const refused = await fetch(`${base}${MEDIA_HEALTH_PATHS.ready}`, { method, body: '{"ok":false}' });
      expect(refused.status, method).toBe(405);
      expect(refused.headers.get('allow')).toBe('GET, HEAD');
      expect(await refused.json()).toEqual({
        error: { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed' },
      });
    }
    for (const other of ['/health/', '/health/ready/', '/health/readyz', '/HEALTH/READY', '/health/../rtc']) {
      expect((await fetch(`${base}${other}`)).status, other).toBe(404);
    }

    // Redis gone: still live (a restart would not bring Redis back), not ready.
    await redis.stop();
    await expect.poll(async () => (await ready(base)).status, { timeout: 10_000 }).toBe(503);
    expect((await ready(base)).body).toMatchObject({
      ok: false,
      checks: { workers: 'ok', redis: 'not answering', closing: 'ok' },
      notReady: ['redis'],
    });
    expect((await fetch(`${base}${MEDIA_HEALTH_PATHS.live}`)).status).toBe(200);

    // Back (empty, on the same port): ready again once the link reconnects.
    await redis.restartEmpty();
    await expect.poll(async () => (await ready(base)).status, { timeout: 15_000 }).toBe(200);
    expect(server.running, server.output).toBe(true);
  }, 60_000);
});

describe('a media server told to close', () => {
  let server: Server | undefined;
  let link: RedisLink | undefined;
  let media: MediaServer | undefined;
  afterAll(async () => {
    server?.close();
    await media?.close();
    await link?.close();
  });

  it('is not ready from the moment it is told to stop, nor once its workers are gone', async () => {
    const config = loadMediaConfig({ RTC_MIN_PORT: '48350', RTC_MAX_PORT: '48399', MEDIA_NUM_WORKERS: '1' });
    media = await MediaServer.create({
      config,
      bus: new MemoryBus(quiet),
      logger: quiet,
      url: 'ws://127.0.0.1:1/rtc',
    });
    link = await RedisLink.connect(REDIS_URL, quiet);
    let closing = false;
    const sources = { media, redis: link, closing: () => closing };
    server = createServer((request, response) => {
      if (!answerHealth(request, response, sources)) response.writeHead(404).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    expect((await ready(base)).status).toBe(200);
    closing = true;
    expect(await ready(base)).toMatchObject({
      status: 503,
      body: { ok: false, checks: { workers: 'ok', redis: 'ok', closing: 'closing' }, notReady: ['closing'] },
    });
    await media.drain(50);
    expect((await ready(base)).body.checks.closing).toBe('draining');
    await media.close();
    expect(await ready(base)).toMatchObject({
      status: 503,
      body: { checks: { workers: 'no mediasoup worker alive', closing: 'closed' } },
    });
    expect((await fetch(`${base}${MEDIA_HEALTH_PATHS.live}`)).status).toBe(200);
  });
});
