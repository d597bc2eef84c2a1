/**
 * Where rooms go: placement over two media servers on one Redis, the wrong-password limit,
 * and the room token's key.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { FakeMediaServers } from './roomTesting.ts';
import { mediaSecretKey } from './roomToken.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('room placement over two media servers, two API processes on one Redis', () => {
  let api1: TestServer;
  let api2: TestServer;
  let media: FakeMediaServers;
  const [busy, idle] = [`busy-${randomUUID()}`, `idle-${randomUUID()}`];

  beforeAll(async () => {
    // One service: the same Redis prefix and JWT secret, so a session works on either process.
    const shared = {
      REDIS_URL,
      REDIS_PREFIX: `test:${randomUUID()}:`,
      JWT_SECRET: randomUUID() + randomUUID(),
    };
    api1 = await TestServer.start(shared);
    api2 = await TestServer.start(shared);
    media = new FakeMediaServers(api1);
  });
  afterAll(async () => {
    media?.stop();
    await api2?.close();
    await api1?.close();
  });

  it('puts a room on the least-loaded live server and keeps it there while that one lives', async () => {
    await media.announce(busy, 8);
    await media.announce(idle, 1);
    const a = await signUp(api1);
    const created = await api1.request('POST', '/rooms', {
      token: a.token,
      body: { name: 'Placed', type: 'public' },
    });
    const roomId = created.body.room.id as string;
    const joinOn = async (api: TestServer) =>
      (await api.request('POST', `/rooms/${roomId}/join`, { token: a.token, body: {} })).body.mediaUrl;

    expect(await joinOn(api1)).toBe(FakeMediaServers.url(idle));
    // The idle one fills up: the room stays where its members are, whichever API process asks.
    await media.announce(idle, 20);
    await expect.poll(() => api2.services.mediaServers.get(idle)?.load.routers).toBe(20);
    expect(await joinOn(api2)).toBe(FakeMediaServers.url(idle));
    expect(await joinOn(api1)).toBe(FakeMediaServers.url(idle));
    // A new room goes to the other, now less loaded.
    const other = await api2.request('POST', '/rooms', {
      token: a.token,
      body: { name: 'Second', type: 'public' },
    });
    const second = await api2.request('POST', `/rooms/${other.body.room.id}/join`, {
      token: a.token,
      body: {},
    });
    expect(second.body.mediaUrl).toBe(FakeMediaServers.url(busy));

    // Its server goes away: the room moves to a live one, and stays there.
    await media.leave(idle);
    await expect.poll(() => api2.services.mediaServers.get(idle)).toBeNull();
    expect(await joinOn(api2)).toBe(FakeMediaServers.url(busy));
    await media.announce(idle, 0);
    expect(await joinOn(api1)).toBe(FakeMediaServers.url(busy));
  });

  it('counts members from every API process, and not those on a server that went away', async () => {
    const server = `m-${randomUUID()}`;
    await media.announce(server);
    const a = await signUp(api1);
    const room = (
      await api1.request('POST', '/rooms', { token: a.token, body: { name: 'Count', type: 'public' } })
    ).body.room;
    await media.members(server, room.id, [a.user.id]);
    const count = (api: TestServer) => async () =>
      (await api.request('GET', `/rooms/${room.id}`, { token: a.token })).body.room.memberCount;
    await expect.poll(count(api1)).toBe(1);
    await expect.poll(count(api2)).toBe(1);
    // A late goodbye from another server does not empty it.
    await media.members(`old-${randomUUID()}`, room.id, []);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await count(api2)()).toBe(1);
    await media.leave(server);
    await expect.poll(() => api2.services.mediaServers.get(server)).toBeNull();
    expect(await count(api2)()).toBe(0);
  });

  it('sends newcomers to a room whose media server is full to another one (a room across media servers), and counts the whole room', async () => {
    await media.announce(`home-${randomUUID()}`, 0);
    const a = await signUp(api1);
    const b = await signUp(api1);
    const room = (
      await api1.request('POST', '/rooms', { token: a.token, body: { name: 'Across', type: 'public' } })
    ).body.room;
    const joinOn = async (api: TestServer, token: string) =>
      (await api.request('POST', `/rooms/${room.id}/join`, { token, body: {} })).body.mediaUrl;
    const idOf = (url: string) => url.slice('ws://'.length, -'.media.test/rtc'.length);
    const home = idOf(await joinOn(api1, a.token));
    const routers = api1.services.mediaServers.get(home)?.load.routers ?? 0;
    await media.announceRooms(home, [{ id: room.id, peers: 1, seats: 10 }]);
    await media.members(home, room.id, [a.user.id]);

    // Its media server is full now: Bob goes to another one, from either API process; the room
    // stays recorded as the first one's.
    await media.announce(home, routers, { full: true });
    await expect.poll(() => api2.services.mediaServers.get(home)?.load.full).toBe(true);
    const elsewhere = await joinOn(api2, b.token);
    expect(elsewhere).not.toBe(FakeMediaServers.url(home));
    expect(await joinOn(api1, b.token)).toBe(elsewhere);
    expect(await api1.services.rooms.deps.placements.store.get(room.id)).toBe(home);
    const part = idOf(elsewhere);

    // Each part says the whole room; the first part emptying (Alice moved) does not empty it.
    await media.members(part, room.id, [a.user.id, b.user.id]);
    const count = async () =>
      (await api2.request('GET', `/rooms/${room.id}`, { token: a.token })).body.room.memberCount;
    await expect.poll(count).toBe(2);
    await media.announceRooms(part, [{ id: room.id, peers: 2, seats: 10 }]);
    await expect.poll(() => api1.services.roomMembership.hostOf(room.id)?.id).toBeTruthy();
    await media.members(home, room.id, []);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await count()).toBe(2);

    // Every media server full: the newcomer goes where the room is, and its ports say when it is full.
    const other = await signUp(api1);
    for (const id of api1.services.mediaServers.list().map((server) => server.id)) {
      if (id !== home)
        await media.announce(id, api1.services.mediaServers.get(id)?.load.routers, { full: true });
    }
    expect([FakeMediaServers.url(home), elsewhere]).toContain(await joinOn(api1, other.token));
    media.stop();
  });
});

describe('wrong room passwords', () => {
  let api: TestServer;
  let media: FakeMediaServers;

  beforeAll(async () => {
    api = await TestServer.start({ REDIS_URL, RATE_LIMIT_FACTOR: '1' });
    media = new FakeMediaServers(api);
    await media.announce(`m-${randomUUID()}`);
  });
  afterAll(async () => {
    media?.stop();
    await api?.close();
  });

  it('are limited per person and room; the right one does not count', async () => {
    const admin = await signUp(api);
    const guesser = await signUp(api);
    const other = await signUp(api);
    const room = (
      await api.request('POST', '/rooms', {
        token: admin.token,
        body: { name: 'Guarded', type: 'public', password: 'correct horse' },
      })
    ).body.room;
    const join = (token: string, password: string) =>
      api.request('POST', `/rooms/${room.id}/join`, { token, body: { password } });

    expect((await join(guesser.token, 'correct horse')).status).toBe(200);
    for (let i = 0; i < 10; i++)
      expect((await join(guesser.token, `guess ${i}`)).body.error.code).toBe('ROOM_PASSWORD_WRONG');
    const limited = await join(guesser.token, 'guess 11');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Even the right password waits now; someone else is not held back.
    expect((await join(guesser.token, 'correct horse')).status).toBe(429);
    expect((await join(other.token, 'correct horse')).status).toBe(200);
  });
});

describe('the room token key', () => {
  const jwtSecret = 'Zq3v8N1pXw4LbT6yHc0RmJ2sKf9GdUe7-jwt';
  const mediaSecret = 'p9Xc2Lm5Qw8Rt1Yb4Nz7Kd0Hj3Fg6Sv-media';
  const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: '/tmp/unused-rooms-key', ...env });
  const bytes = (env: Record<string, string>) => mediaSecretKey(config(env)).export().toString('hex');

  it('is MEDIA_SECRET when set, else derived from the JWT secret and never equal to it', () => {
    expect(bytes({ JWT_SECRET: jwtSecret, MEDIA_SECRET: mediaSecret })).toBe(
      Buffer.from(mediaSecret).toString('hex'),
    );
    const derived = bytes({ JWT_SECRET: jwtSecret });
    expect(derived).toHaveLength(64);
    expect(derived).toBe(bytes({ JWT_SECRET: jwtSecret }));
    expect(derived).not.toBe(Buffer.from(jwtSecret).toString('hex'));
    expect(derived).not.toBe(bytes({ JWT_SECRET: `${jwtSecret}2` }));
  });

  it.each([
    ['short', 'x1y2z3'],
    ['weak', 'change-me-'.repeat(4)],
    ['the JWT secret', jwtSecret],
  ])('refuses a MEDIA_SECRET that is %s', (_what, value) => {
    expect(() => config({ JWT_SECRET: jwtSecret, MEDIA_SECRET: value })).toThrow(ConfigError);
    expect(() => config({ JWT_SECRET: jwtSecret, MEDIA_SECRET: value })).toThrow(/MEDIA_SECRET/);
  });
});
