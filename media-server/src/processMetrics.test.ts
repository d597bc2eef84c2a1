import { randomUUID } from 'node:crypto';
import { MemoryBus, ObservedBus, roomCommandsChannel } from '@voice/bus';
import { freePort } from '@voice/bus/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMediaConfig } from './config.ts';
import { MediaConfigError } from './errors.ts';
import { bearerMatches, busMetrics, createMetricsRegistry, startMetricsListener } from './processMetrics.ts';
import { MediaServerChild } from './testing/MediaServerChild.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOKEN = 'metrics-test-Qw8Er2Ty6Ui4Op0As5Df7Gh3Jk';
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadMediaConfig(env);
  } catch (error) {
    if (error instanceof MediaConfigError) return error.problems;
    throw error;
  }
  throw new Error('loadMediaConfig() accepted a bad environment');
}

describe('METRICS_* in loadMediaConfig()', () => {
  it('leaves metrics off by default and reads the three variables', () => {
    expect(loadMediaConfig({}).metrics).toEqual({ port: null, host: '0.0.0.0', token: null });
    expect(
      loadMediaConfig({ METRICS_PORT: '9465', METRICS_HOST: '127.0.0.1', METRICS_TOKEN: TOKEN }).metrics,
    ).toEqual({ port: 9465, host: '127.0.0.1', token: TOKEN });
  });

  it('names METRICS_PORT or METRICS_TOKEN in one line when it is wrong', () => {
    for (const port of ['abc', '-1', '65536', '9464.5']) {
      expect(problemsOf({ METRICS_PORT: port }), port).toEqual([expect.stringMatching(/^METRICS_PORT: /)]);
    }
    expect(problemsOf({ METRICS_PORT: '4443' })).toEqual([
      'METRICS_PORT: must differ from MEDIA_PORT (4443)',
    ]);
    for (const token of ['short', 'a'.repeat(40), `${TOKEN} x`]) {
      expect(problemsOf({ METRICS_TOKEN: token }), token).toEqual([
        expect.stringMatching(/^METRICS_TOKEN: /),
      ]);
    }
  });
});

describe('bearerMatches()', () => {
  it('takes the token after Bearer and nothing else', () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
    for (const header of [undefined, '', 'Bearer', 'Bearer ', TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      expect(bearerMatches(header, TOKEN), String(header)).toBe(false);
    }
    expect(bearerMatches(`Bearer ${TOKEN.slice(0, -1)}`, TOKEN)).toBe(false);
  });
});

describe('busMetrics() with an ObservedBus', () => {
  it('counts publishes and deliveries by channel', async () => {
    const registry = createMetricsRegistry();
    const bus = new ObservedBus(new MemoryBus(quiet), busMetrics(registry));
    const got: unknown[] = [];
    await bus.subscribe(roomCommandsChannel, (command) => got.push(command));
    await bus.publish(roomCommandsChannel, { type: 'close', roomId: 'r' });
    await bus.publish(roomCommandsChannel, { type: 'close', roomId: 's' });
    await expect.poll(() => got.length).toBe(2);
    const text = await registry.metrics();
    expect(text).toContain('voice_bus_messages_published_total{channel="room-commands",outcome="ok"} 2');
    expect(text).toContain('voice_bus_messages_received_total{channel="room-commands"} 2');
    expect(text).toContain('voice_bus_publish_duration_seconds_count{channel="room-commands"} 2');
    await bus.close();
  });
});

describe('startMetricsListener()', () => {
  it('serves GET /metrics, 404 elsewhere, and keeps serving after hostile requests', async () => {
    const registry = createMetricsRegistry();
    const listener = await startMetricsListener(registry, 0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${listener.port}`;
      for (const pathname of ['/', '/metricsx', '/metrics/', '//[', '/%zz']) {
        expect((await fetch(`${base}${pathname}`)).status, pathname).toBe(404);
      }
      expect((await fetch(`${base}/metrics`, { method: 'POST', body: 'x' })).status).toBe(404);
      const response = await fetch(`${base}/metrics?x=1`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      const text = await response.text();
      expect(text).toContain('process_cpu_seconds_total');
      expect(text).toContain('nodejs_eventloop_lag_seconds');
    } finally {
      await listener.close();
      await listener.close();
    }
  });

  it('names METRICS_PORT when the port is taken', async () => {
    const registry = createMetricsRegistry();
    const first = await startMetricsListener(registry, 0, '127.0.0.1');
    try {
      await expect(startMetricsListener(registry, first.port, '127.0.0.1')).rejects.toThrow(
        `METRICS_PORT: cannot listen on 127.0.0.1:${first.port} (listen EADDRINUSE`,
      );
    } finally {
      await first.close();
    }
  });
});

// `npm run start -w media-server` as its own process on Redis, scraped as Prometheus would.
describe('a media server process of its own', () => {
  let server: MediaServerChild | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('serves its metrics on METRICS_PORT, and on MEDIA_PORT for a bearer of METRICS_TOKEN', async () => {
    const metricsPort = await freePort();
    server = await MediaServerChild.start({
      redisUrl: REDIS_URL,
      redisPrefix: `test:${randomUUID()}:`,
      rtcPorts: { min: 48200, max: 48299 },
      env: { METRICS_PORT: String(metricsPort), METRICS_HOST: '127.0.0.1', METRICS_TOKEN: TOKEN },
    });
    const { port } = server;

    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(own.status).toBe(200);
    const text = await own.text();
    expect(text).toMatch(/^voice_media_workers 1$/m);
    expect(text).toMatch(/^voice_media_rooms 0$/m);
    expect(text).toMatch(/^voice_media_worker_cpu_seconds_total\{worker_pid="\d+"\} [\d.e-]+$/m);
    expect(text).toMatch(/^voice_media_worker_max_rss_bytes\{worker_pid="\d+"\} \d+$/m);
    // It announced itself on the bus at start.
    expect(text).toMatch(
      /^voice_bus_messages_published_total\{channel="media-servers",outcome="ok"\} [1-9]/m,
    );
    expect(text).toContain('process_resident_memory_bytes');

    const main = `http://127.0.0.1:${port}/metrics`;
    expect((await fetch(main)).status).toBe(401);
    const wrong = await fetch(main, { headers: { authorization: `Bearer ${TOKEN.slice(1)}x` } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Unauthorized' } });
    const right = await fetch(main, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(await right.text()).toMatch(/^voice_media_workers 1$/m);
    // Refused scrapes leave the process serving.
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });
});
