/**
 * Rooms while Redis does not answer (SIGSTOP on a Redis of the test's own): the rooms still
 * come from the database, with their member counts unknown; a join is refused with 503
 * ROOMS_UNAVAILABLE rather than guessed; a room is created once, with 201. Everything is
 * back once Redis answers again.
 */
import { randomUUID } from 'node:crypto';
import { RedisProcess } from '@voice/bus/testing';
import { ERRORS, ROOM_ROUTES } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { FakeMediaServers } from './roomTesting.ts';

describe('rooms while Redis is paused', () => {
  let redis: RedisProcess;
  let api: TestServer;
  let media: FakeMediaServers;
  const serverId = `m-${randomUUID()}`;

  beforeAll(async () => {
    redis = await RedisProcess.start();
    api = await TestServer.start({ REDIS_URL: redis.url });
    media = new FakeMediaServers(api);
    await media.announce(serverId);
  });
  afterEach(() => {
    redis.resume();
  });
  afterAll(async () => {
    media?.stop();
    redis?.resume();
    await api?.close();
    await redis?.stop();
  });

  it('lists, searches and shows rooms with unknown counts, refuses joins with 503, creates once', async () => {
    const admin = await signUp(api);
    const guest = await signUp(api);
    const tag = randomUUID().slice(0, 8);
    const created = await api.request('POST', ROOM_ROUTES.rooms, {
      token: admin.token,
      body: { name: `Held ${tag}`, type: 'public' },
    });
    const roomId = created.body.room.id as string;
    await media.members(serverId, roomId, [admin.user.id]);
    const shown = (token: string) => api.request('GET', ROOM_ROUTES.room(roomId), { token });
    await expect.poll(async () => (await shown(guest.token)).body.room.memberCount).toBe(1);

    redis.pause();

    const list = await api.request('GET', ROOM_ROUTES.rooms, { token: guest.token });
    expect(list.status).toBe(200);
    const listed = list.body.rooms.find((room: { id: string }) => room.id === roomId);
    expect(listed).toMatchObject({ name: `Held ${tag}`, memberCount: null, participants: [] });

    const search = await api.request(
      'GET',
      `${ROOM_ROUTES.rooms}?query=${encodeURIComponent(`held ${tag}`)}`,
      {
        token: guest.token,
      },
    );
    expect(search.status).toBe(200);
    expect(search.body.rooms).toEqual([expect.objectContaining({ id: roomId, memberCount: null })]);

    const one = await shown(guest.token);
    expect(one.status).toBe(200);
    expect(one.body.room).toMatchObject({ id: roomId, memberCount: null });

    const join = await api.request('POST', ROOM_ROUTES.join(roomId), { token: guest.token, body: {} });
    expect(join.status).toBe(503);
    expect(join.body.error).toEqual({
      code: 'ROOMS_UNAVAILABLE',
      message: ERRORS.ROOMS_UNAVAILABLE.message,
    });
    expect(Number(join.headers.get('retry-after'))).toBeGreaterThan(0);

    // Made in the database, the other processes told as well as they can be: 201, once.
    const made = await api.request('POST', ROOM_ROUTES.rooms, {
      token: admin.token,
      body: { name: `Made while paused ${tag}`, type: 'public' },
    });
    expect(made.status).toBe(201);
    expect(made.body.room).toMatchObject({ name: `Made while paused ${tag}`, memberCount: null });
    const found = await api.request(
      'GET',
      `${ROOM_ROUTES.rooms}?query=${encodeURIComponent(`paused ${tag}`)}`,
      {
        token: admin.token,
      },
    );
    expect(found.body.rooms.map((room: { id: string }) => room.id)).toEqual([made.body.room.id]);

    // Changed and deleted too: the database has the last word on rooms.
    const changed = await api.request('PATCH', ROOM_ROUTES.room(made.body.room.id), {
      token: admin.token,
      body: { description: 'still here' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.room).toMatchObject({ description: 'still here', memberCount: null });
    const removed = await api.request('DELETE', ROOM_ROUTES.room(made.body.room.id), { token: admin.token });
    expect(removed.status).toBe(204);

    redis.resume();

    // The members Redis kept are counted again, and joins go through to the room's server (a
    // room placed nowhere yet waits until the media servers have announced themselves again).
    await expect.poll(async () => (await shown(guest.token)).body.room.memberCount).toBe(1);
    await expect
      .poll(
        async () => {
          const res = await api.request('POST', ROOM_ROUTES.join(roomId), { token: guest.token, body: {} });
          return [res.status, res.body.mediaUrl ?? res.body.error?.code];
        },
        { timeout: 10_000, interval: 200 },
      )
      .toEqual([200, FakeMediaServers.url(serverId)]);
  });

  it('a join over the app socket is refused the same way', async () => {
    const admin = await signUp(api);
    const room = (
      await api.request('POST', ROOM_ROUTES.rooms, {
        token: admin.token,
        body: { name: `Socket ${randomUUID().slice(0, 8)}`, type: 'public' },
      })
    ).body.room;
    const client = await SocketClient.connect(api.baseUrl, admin.token, { origin: 'http://app.test' });
    try {
      redis.pause();
      await expect(client.request('join-room', { roomId: room.id })).rejects.toThrow(/ROOMS_UNAVAILABLE/);
    } finally {
      redis.resume();
      client.close();
    }
  });
});
