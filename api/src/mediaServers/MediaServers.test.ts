import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { MediaServerChild, TEST_PROCESS_MEDIA_SECRET } from '@voice/media-server/testing';
import { MEDIA_PROBE, ROOM_ROUTES } from '@voice/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshake } from '../testing/handshake.ts';
import { RawSocket } from '../testing/RawSocket.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';

// The API and a media server of its own, as two processes on one Redis (the local one unless
// REDIS_URL says otherwise): the media server announces itself and the API places by that.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test:${randomUUID()}:`;
// The key the API signs room tokens with; a media server run apart needs the same.
const MEDIA_SECRET = TEST_PROCESS_MEDIA_SECRET;

/** `media-server/src/main.ts` as its own process; resolves once it listens. */
async function startMediaServer(rtcMinPort: number): Promise<{ child: ChildProcess; port: number }> {
  const { child, port } = await MediaServerChild.start({
    redisUrl: REDIS_URL,
    redisPrefix: prefix,
    rtcPorts: { min: rtcMinPort, max: rtcMinPort + 99 },
  });
  return { child, port };
}

describe('a media server of its own, seen by the API over Redis', () => {
  let api: TestServer;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    api = await TestServer.start({ REDIS_URL, REDIS_PREFIX: prefix, MEDIA_SERVER: 'external', MEDIA_SECRET });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await api?.close();
  });

  it('is seen within 5 s of starting, serves /rtc on MEDIA_PORT, and is gone within 15 s of kill -9', async () => {
    const { child, port } = await startMediaServer(46100);
    children.push(child);
    const seen = Date.now();
    await expect
      .poll(() => api.services.mediaServers.list().length, { timeout: 5000, interval: 100 })
      .toBe(1);
    expect(Date.now() - seen).toBeLessThan(5000);
    const [known] = api.services.mediaServers.list();
    expect(known).toMatchObject({ url: `ws://127.0.0.1:${port}/rtc`, load: { workers: 1, routers: 0 } });
    expect(api.services.mediaServers.leastLoaded()?.id).toBe(known?.id);

    expect(await handshake(`ws://127.0.0.1:${port}/rtc`)).toEqual({
      status: 401,
      reason: 'Room token required',
    });
    expect((await handshake(`ws://127.0.0.1:${port}/ws`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);

    child.kill('SIGKILL');
    const killed = Date.now();
    await expect
      .poll(() => api.services.mediaServers.list().length, { timeout: 15_000, interval: 200 })
      .toBe(0);
    expect(Date.now() - killed).toBeLessThan(15_000);
    expect(api.services.mediaServers.leastLoaded()).toBeNull();
  });

  it('places rooms on the least-loaded of two media server processes, and keeps a room where it is', async () => {
    const servers = [await startMediaServer(46500), await startMediaServer(46700)];
    children.push(...servers.map(({ child }) => child));
    await expect.poll(() => api.services.mediaServers.list().length, { timeout: 5000 }).toBe(2);
    const { token, user } = await signUp(api);
    const createRoom = async (name: string) =>
      (await api.request('POST', ROOM_ROUTES.rooms, { token, body: { name, type: 'public' } })).body.room
        .id as string;
    const join = async (roomId: string) => {
      const res = await api.request('POST', ROOM_ROUTES.join(roomId), { token, body: {} });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { roomToken: string; mediaUrl: string };
    };

    // A member in the first room gives its media server a router: it is the busier one now.
    const first = await createRoom('first');
    const firstJoin = await join(first);
    const member = await RawSocket.connectUrl(
      `${firstJoin.mediaUrl}?roomId=${first}&peerId=${user.id}&token=${firstJoin.roomToken}`,
    );
    try {
      expect(await member.request('getRouterRtpCapabilities', {})).toMatchObject({ ok: true });
      await expect
        .poll(
          () =>
            api.services.mediaServers.list().find((known) => known.url === firstJoin.mediaUrl)?.load.routers,
          {
            timeout: 6000,
          },
        )
        .toBe(1);

      const second = await createRoom('second');
      const secondJoin = await join(second);
      expect(secondJoin.mediaUrl).not.toBe(firstJoin.mediaUrl);
      expect(servers.map(({ port }) => `ws://127.0.0.1:${port}/rtc`)).toContain(secondJoin.mediaUrl);
      // The first room stays on the server that hosts it, busy or not.
      expect((await join(first)).mediaUrl).toBe(firstJoin.mediaUrl);
    } finally {
      member.close();
      // A goodbye each, so the next test starts with no media server known.
      for (const { child } of servers) child.kill('SIGTERM');
      await expect.poll(() => api.services.mediaServers.list().length, { timeout: 5000 }).toBe(0);
    }
  });

  it("a member who could not reach the room's media server: a healthy one stays, a killed one is out at once", async () => {
    const servers = [await startMediaServer(46800), await startMediaServer(46900)];
    children.push(...servers.map(({ child }) => child));
    await expect.poll(() => api.services.mediaServers.list().length, { timeout: 5000 }).toBe(2);
    const urls = servers.map(({ port }) => `ws://127.0.0.1:${port}/rtc`);
    const { token } = await signUp(api);
    const roomId = (
      await api.request('POST', ROOM_ROUTES.rooms, { token, body: { name: 'Moved', type: 'public' } })
    ).body.room.id as string;
    const join = async (unreachable?: string) => {
      const res = await api.request('POST', ROOM_ROUTES.join(roomId), {
        token,
        body: unreachable === undefined ? {} : { unreachable },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.mediaUrl as string;
    };
    try {
      const first = await join();
      const index = urls.indexOf(first);
      expect(index).toBeGreaterThanOrEqual(0);
      const [host, other] = [servers[index], servers[1 - index]];
      if (!host || !other) throw new Error('the room is on neither media server');
      const hostId = api.services.mediaServers.list().find((known) => known.url === first)?.id as string;

      // Another server's URL says nothing of this room's: nothing is asked, nothing moves.
      expect(await join(urls[1 - index])).toBe(first);
      // The room's own, alive: its /health answers with its id, so one browser's word moves nothing.
      expect(await join(first)).toBe(first);
      expect(api.services.mediaServers.get(hostId)).not.toBeNull();

      // Once that answer has lapsed, the host dies without a goodbye; it still counts as announced.
      await new Promise((resolve) => setTimeout(resolve, MEDIA_PROBE.trustMs));
      host.child.kill('SIGKILL');
      await once(host.child, 'exit');
      expect(api.services.mediaServers.get(hostId)).not.toBeNull();
      expect(await join()).toBe(first);
      // Reported: probed, found gone, and the room moves to the live one, long before its announcement expires.
      expect(await join(first)).toBe(`ws://127.0.0.1:${other.port}/rtc`);
      expect(api.services.mediaServers.get(hostId)).toBeNull();
      expect(await join()).toBe(`ws://127.0.0.1:${other.port}/rtc`);
    } finally {
      for (const { child } of servers) child.kill('SIGTERM');
      await expect.poll(() => api.services.mediaServers.list().length, { timeout: 5000 }).toBe(0);
    }
  });

  it('a new API replica is ready only once it knows the media servers: its first join after is placed', async () => {
    const { child } = await startMediaServer(46400);
    children.push(child);
    await expect.poll(() => api.services.mediaServers.list().length, { timeout: 5000 }).toBe(1);

    // A replica started during a roll, on the same Redis (a database of its own here: what it
    // must know of the media servers comes over Redis alone); traffic comes once it is ready.
    const replica = await TestServer.start({
      REDIS_URL,
      REDIS_PREFIX: prefix,
      MEDIA_SERVER: 'external',
      MEDIA_SECRET,
    });
    try {
      await expect
        .poll(async () => (await replica.request('GET', '/health/ready')).status, {
          timeout: 5000,
          interval: 20,
        })
        .toBe(200);
      const { token } = await signUp(replica);
      const room = await replica.request('POST', ROOM_ROUTES.rooms, {
        token,
        body: { name: 'roll', type: 'public' },
      });
      const join = await replica.request('POST', ROOM_ROUTES.join(room.body.room.id), { token, body: {} });
      expect(join.status, JSON.stringify(join.body)).toBe(200);
      expect(join.body.mediaUrl).toBe(api.services.mediaServers.list()[0]?.url);
    } finally {
      await replica.close();
      child.kill('SIGTERM');
      await expect.poll(() => api.services.mediaServers.list().length, { timeout: 5000 }).toBe(0);
    }
  });

  it('says goodbye on SIGTERM, so the API stops placing rooms there at once', async () => {
    const { child } = await startMediaServer(46300);
    children.push(child);
    await expect.poll(() => api.services.mediaServers.list().length, { timeout: 5000 }).toBe(1);
    child.kill('SIGTERM');
    const stopped = Date.now();
    await expect.poll(() => api.services.mediaServers.list().length, { timeout: 5000, interval: 50 }).toBe(0);
    // Well before an announcement would have expired.
    expect(Date.now() - stopped).toBeLessThan(3000);
    if (child.exitCode === null) await once(child, 'exit');
    expect(child.exitCode).toBe(0);
  });
});
