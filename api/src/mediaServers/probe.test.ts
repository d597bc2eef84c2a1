/**
 * Checking a media server a browser could not reach: what a probe of its /health finds, and
 * when MediaServers takes it out of placement for that (never on the browser's word alone).
 * Stand-ins on loopback play the servers: one that answers its id, one that takes connections
 * and never answers, a closed port, and other things that answer /health.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { MemoryBus, mediaAnnounceChannel } from '@voice/bus';
import { freePort } from '@voice/bus/testing';
import { MEDIA_PROBE } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { MediaServers } from './MediaServers.ts';
import { probeMediaServer } from './probeMediaServer.ts';

const logger = createLogger('error', 'test');

/** An HTTP listener on loopback answering /health with `body` (counting the requests). */
async function healthServer(
  status: number,
  body: string,
): Promise<{ server: HttpServer; url: string; hits: () => number }> {
  let hits = 0;
  const server = createHttpServer((request, response) => {
    if (request.url === '/health') hits++;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { server, url: `ws://127.0.0.1:${port}/rtc`, hits: () => hits };
}

/** Takes connections and never says a word, as a stopped (SIGSTOP) or wedged process does. */
async function silentServer(): Promise<{ server: TcpServer; url: string }> {
  const sockets: Socket[] = [];
  const server = createTcpServer((socket) => sockets.push(socket));
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { server, url: `ws://127.0.0.1:${port}/rtc` };
}

const closers: Array<{ close(): unknown }> = [];
afterAll(() => {
  for (const closer of closers) closer.close();
});

describe('probeMediaServer', () => {
  it('finds alive the server that answers its own id', async () => {
    const health = await healthServer(
      200,
      JSON.stringify({ ok: true, id: 'm-1', load: { workers: 1, routers: 0 } }),
    );
    closers.push(health.server);
    expect(await probeMediaServer('m-1', health.url, 1000)).toBe('alive');
  });

  it('finds gone a server whose address another one answers (it restarted with a new id)', async () => {
    const health = await healthServer(200, JSON.stringify({ ok: true, id: 'm-2' }));
    closers.push(health.server);
    expect(await probeMediaServer('m-1', health.url, 1000)).toBe('refused');
  });

  it('finds gone a server where nothing listens', async () => {
    const port = await freePort();
    expect(await probeMediaServer('m-1', `ws://127.0.0.1:${port}/rtc`, 1000)).toBe('refused');
  });

  it('finds unanswered a server that takes the connection and says nothing', async () => {
    const silent = await silentServer();
    closers.push(silent.server);
    expect(await probeMediaServer('m-1', silent.url, 300)).toBe('unanswered');
  });

  it.each([
    ['a web page', 200, '<!doctype html><title>Voice</title>'],
    ['JSON without an id', 200, JSON.stringify({ ok: true })],
    ['an error', 500, JSON.stringify({ ok: true, id: 'm-1' })],
    ['not found', 404, '{}'],
  ])('has no verdict when /health answers %s (a proxy, or the app itself)', async (_what, status, body) => {
    const health = await healthServer(status, body);
    closers.push(health.server);
    expect(await probeMediaServer('m-1', health.url, 1000)).toBe('unknown');
  });
});

describe('MediaServers.confirm and origins', () => {
  let bus: MemoryBus;
  let servers: MediaServers;
  const timers: NodeJS.Timeout[] = [];

  beforeAll(async () => {
    bus = new MemoryBus(logger);
    servers = await MediaServers.create(bus, logger);
  });
  afterEach(() => {
    for (const timer of timers.splice(0)) clearInterval(timer);
  });
  afterAll(async () => {
    await servers?.close();
  });

  /** Announces `id` at `url` once, or every 500 ms with `keep`; waits until it is known. */
  async function announce(id: string, url: string, { keep = false } = {}): Promise<void> {
    const send = () => bus.publish(mediaAnnounceChannel, { id, url, load: { workers: 1, routers: 0 } });
    await send();
    if (keep) timers.push(setInterval(() => void send(), 500));
    await expect.poll(() => servers.get(id)).not.toBeNull();
  }

  it('drops a server where nothing listens at once, and its origin with it', async () => {
    const port = await freePort();
    const url = `ws://127.0.0.1:${port}/rtc`;
    await announce('dead', url, { keep: true });
    expect(servers.origins()).toContain(`ws://127.0.0.1:${port}`);
    expect(await servers.confirm('dead')).toBe(false);
    expect(servers.get('dead')).toBeNull();
    expect(servers.origins()).not.toContain(`ws://127.0.0.1:${port}`);
  });

  it('keeps a server that answers its id, and asks it once however many report it', async () => {
    const health = await healthServer(200, JSON.stringify({ ok: true, id: 'healthy' }));
    closers.push(health.server);
    await announce('healthy', health.url);
    const verdicts = await Promise.all(Array.from({ length: 20 }, () => servers.confirm('healthy')));
    expect(verdicts).toEqual(Array(20).fill(true));
    expect(health.hits()).toBe(1);
    // Found alive a moment ago: more reports do not ask again.
    expect(await servers.confirm('healthy')).toBe(true);
    expect(health.hits()).toBe(1);
    expect(servers.get('healthy')).not.toBeNull();
  });

  it('keeps a server that does not answer while it still announces itself', async () => {
    const silent = await silentServer();
    closers.push(silent.server);
    await announce('busy', silent.url, { keep: true });
    expect(await servers.confirm('busy')).toBe(true);
    expect(servers.get('busy')).not.toBeNull();
  });

  it('drops a server that neither answers nor announces itself', async () => {
    const silent = await silentServer();
    closers.push(silent.server);
    await announce('stopped', silent.url);
    // Silent on the bus for longer than one missed announcement.
    await new Promise((resolve) => setTimeout(resolve, MEDIA_PROBE.silentMs + 200));
    expect(await servers.confirm('stopped')).toBe(false);
    expect(servers.get('stopped')).toBeNull();
  });

  it('keeps a server when the probe cannot tell', async () => {
    const health = await healthServer(200, '<!doctype html>');
    closers.push(health.server);
    await announce('proxied', health.url);
    expect(await servers.confirm('proxied')).toBe(true);
    expect(servers.get('proxied')).not.toBeNull();
  });

  it('answers false for a server it does not know, without asking anyone', async () => {
    expect(await servers.confirm('never-announced')).toBe(false);
  });

  it('lists the live origins sorted and once each, as the same array until they change', async () => {
    const fresh = await MediaServers.create(bus, logger);
    try {
      const send = (id: string, url: string, gone?: true) =>
        bus.publish(mediaAnnounceChannel, {
          id,
          url,
          load: { workers: 1, routers: 0 },
          ...(gone ? { gone } : {}),
        });
      await send('b', 'wss://b.media.test/rtc');
      await send('a', 'ws://a.media.test:4443/rtc');
      await send('a2', 'ws://a.media.test:4443/rtc');
      await expect.poll(() => fresh.list().length).toBe(3);
      const origins = fresh.origins();
      expect(origins).toEqual(['ws://a.media.test:4443', 'wss://b.media.test']);
      await send('b', 'wss://b.media.test/rtc');
      await send('a', 'ws://a.media.test:4443/rtc');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(fresh.origins()).toBe(origins);
      await send('b', 'wss://b.media.test/rtc', true);
      await expect.poll(() => fresh.origins()).toEqual(['ws://a.media.test:4443']);
    } finally {
      await fresh.close();
    }
  });
});
