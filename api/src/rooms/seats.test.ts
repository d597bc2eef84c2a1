/**
 * Seats that cannot be overbooked (issue 21, item 5): a join holds a seat until its room token
 * is used (the person shows up among the members) or lapses, and the check and the hold are one
 * step, so joins at the same moment, through two API processes on one Redis, never let more
 * people in than the room has seats.
 */
import { randomUUID } from 'node:crypto';
import { RedisLink } from '@voice/bus';
import { ROOM_ROUTES } from '@voice/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { SHARED_REDIS_URL } from '../testing/TwoNodes.ts';
import { type MemberStore, MemoryMemberStore, type SeatRequest } from './MemberStore.ts';
import { RedisMemberStore } from './RedisMemberStore.ts';
import { FakeMediaServers, until } from './roomTesting.ts';

type Account = Awaited<ReturnType<typeof signUp>>;

describe.each([
  ['two API processes on one Redis', SHARED_REDIS_URL],
  ['one process, stores in memory', ''],
])('room seats, %s', (_name, redisUrl) => {
  const apis: TestServer[] = [];
  let media: FakeMediaServers;
  const serverId = `m-${randomUUID()}`;
  /** Alternates between the processes (the same one twice without Redis). */
  const api = (i: number) => apis[i % apis.length] as TestServer;
  const join = (i: number, person: Account, roomId: string) =>
    api(i).request('POST', ROOM_ROUTES.join(roomId), { token: person.token, body: {} });
  const memberCount = async (person: Account, roomId: string) =>
    (await api(0).request('GET', `/rooms/${roomId}`, { token: person.token })).body.room.memberCount;

  beforeAll(async () => {
    const shared = { REDIS_URL: redisUrl, REDIS_PREFIX: `test:${randomUUID()}:`, JWT_SECRET: randomUUID() };
    apis.push(await TestServer.start(shared));
    if (redisUrl) apis.push(await TestServer.start(shared));
    media = new FakeMediaServers(apis[0] as TestServer);
    await media.announce(serverId);
    await until(() => apis.every((server) => server.services.mediaServers.get(serverId) !== null));
  });
  afterAll(async () => {
    media?.stop();
    for (const server of apis.splice(0).reverse()) await server.close();
  });

  it('30 joins at once into 10 seats let 10 in and tell 20 "Room is full"; a seat comes back when one leaves', async () => {
    const admin = await signUp(api(0));
    const created = await api(0).request('POST', ROOM_ROUTES.rooms, {
      token: admin.token,
      body: { name: `Seats ${randomUUID().slice(0, 8)}`, type: 'public', maxParticipants: 10 },
    });
    expect(created.status).toBe(201);
    const roomId = created.body.room.id as string;
    const people: Account[] = [];
    for (let i = 0; i < 33; i++) people.push(await signUp(api(i)));
    const crowd = people.slice(0, 30);
    const [late1, late2, late3] = people.slice(30) as [Account, Account, Account];

    const answers = await Promise.all(crowd.map((person, i) => join(i, person, roomId)));
    const admitted = crowd.filter((_, i) => answers[i]?.status === 200);
    expect(admitted).toHaveLength(10);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(20);
    for (const answer of refused) {
      expect(answer.status).toBe(409);
      expect(answer.body.error).toMatchObject({ code: 'ROOM_FULL', message: 'Room is full' });
    }
    // One let in asks again (a second tab, a retry): the same seat, nobody else's.
    expect((await join(1, admitted[0] as Account, roomId)).status).toBe(200);
    expect((await join(0, late1, roomId)).status).toBe(409);

    // The ten arrive on the media server: their held seats become members; still full.
    await media.members(
      serverId,
      roomId,
      admitted.map((person) => person.user.id),
    );
    await expect.poll(() => memberCount(admin, roomId)).toBe(10);
    expect((await join(1, late1, roomId)).status).toBe(409);

    // One leaves: exactly one of two latecomers asking together gets the seat.
    await media.members(
      serverId,
      roomId,
      admitted.slice(1).map((person) => person.user.id),
    );
    await expect.poll(() => memberCount(admin, roomId)).toBe(9);
    const [second, third] = await Promise.all([join(0, late2, roomId), join(1, late3, roomId)]);
    expect([second.status, third.status].sort()).toEqual([200, 409]);
    // The server keeps serving.
    expect((await api(1).request('GET', `/rooms/${roomId}`, { token: admin.token })).status).toBe(200);
  });

  it('a room whose media worker has ports for 3 more lets 3 of 6 in, whatever its maxParticipants', async () => {
    const admin = await signUp(api(0));
    const created = await api(0).request('POST', ROOM_ROUTES.rooms, {
      token: admin.token,
      body: { name: `Ports ${randomUUID().slice(0, 8)}`, type: 'public', maxParticipants: 500 },
    });
    const roomId = created.body.room.id as string;
    // Its server has ports for three more members (two ports each, RTC_LIMITS.portsPerMember).
    await media.announceRooms(serverId, [{ id: roomId, peers: 0, seats: 3 }]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const people: Account[] = [];
    for (let i = 0; i < 6; i++) people.push(await signUp(api(i)));
    const answers = await Promise.all(people.map((person, i) => join(i, person, roomId)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
    for (const answer of answers.filter((answer) => answer.status !== 200)) {
      expect(answer.status).toBe(409);
      expect(answer.body.error).toMatchObject({ code: 'ROOM_FULL', message: 'Room is full' });
    }
    await media.announceRooms(serverId, []);
  });

  it("a stage holds its own maxParticipants, past any other room's 1000: with 1199 of 1200 inside, one of two gets in", async () => {
    const admin = await signUp(api(0));
    const created = await api(0).request('POST', ROOM_ROUTES.rooms, {
      token: admin.token,
      body: { name: `Stage ${randomUUID().slice(0, 8)}`, type: 'public', stage: true, maxParticipants: 1200 },
    });
    expect(created.status).toBe(201);
    const roomId = created.body.room.id as string;
    await media.members(
      serverId,
      roomId,
      Array.from({ length: 1199 }, () => randomUUID()),
    );
    await expect.poll(() => memberCount(admin, roomId)).toBe(1199);
    const [late1, late2] = [await signUp(api(0)), await signUp(api(1))];
    const answers = await Promise.all([join(0, late1, roomId), join(1, late2, roomId)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.status === 409)?.body.error.code).toBe('ROOM_FULL');
    await media.members(serverId, roomId, []);
    await expect.poll(() => memberCount(admin, roomId)).toBe(0);
    // Each of the 1199 coming and going has their friends looked up (FriendRooms): those queries
    // end before the processes close, the database idle for a moment.
    const idle = () =>
      apis.every(({ services: { db } }) => {
        const pool = db.client.pool;
        return pool?.numUsed() === 0 && pool.numPendingAcquires() === 0;
      });
    const idleAWhile = async () => {
      if (!idle()) return false;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return idle();
    };
    await expect.poll(idleAWhile).toBe(true);
  });
});

describe.each([
  ['in memory', async () => ({ store: new MemoryMemberStore() as MemberStore, close: async () => {} })],
  [
    'in Redis',
    async () => {
      const link = await RedisLink.connect(SHARED_REDIS_URL, createLogger('error', 'test'));
      return {
        store: new RedisMemberStore(link, `test:seats:${randomUUID()}:`) as MemberStore,
        close: () => link.close(),
      };
    },
  ],
])('MemberStore seats, %s', (_name, open) => {
  let store: MemberStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ store, close } = await open());
  });
  afterAll(() => close());

  // Times from the test's start: Redis lets the whole set of seats expire with the last hold
  // (so not from the file's start, which a slow test before could put a minute back).
  let start = Date.now();
  beforeEach(() => {
    start = Date.now();
  });
  const seat = (roomId: string, userId: string, atMs: number, more: Partial<SeatRequest> = {}) =>
    store.reserveSeat({
      roomId,
      userId,
      capacity: 2,
      floor: 0,
      liveServers: ['s1'],
      nowMs: start + atMs,
      untilMs: start + atMs + 60_000,
      ...more,
    });

  it('a held seat lapses with its token; a member needs none; a member who leaves frees theirs', async () => {
    const roomId = randomUUID();
    expect(await seat(roomId, 'ann', 0)).toBe(true);
    expect(await seat(roomId, 'bob', 1000)).toBe(true);
    expect(await seat(roomId, 'cid', 2000)).toBe(false);
    // Ann never came: her seat lapses a minute after it was held, Bob's a second later.
    expect(await seat(roomId, 'cid', 60_000)).toBe(true);
    expect(await seat(roomId, 'dan', 60_500)).toBe(false);
    // Bob and Cid arrive: members now, holding nothing; a member asking again is let in.
    await store.set({ serverId: 's1', roomId, peers: ['bob', 'cid'] });
    expect(await seat(roomId, 'bob', 61_000)).toBe(true);
    expect(await seat(roomId, 'dan', 61_000)).toBe(false);
    // Cid leaves: his seat is free, not held for him.
    await store.set({ serverId: 's1', roomId, peers: ['bob'] });
    expect(await seat(roomId, 'dan', 61_000)).toBe(true);
    expect(await seat(roomId, 'eve', 61_000)).toBe(false);
  });

  it("a dead server's members count for nothing; an announced floor counts; a released seat is free", async () => {
    const roomId = randomUUID();
    await store.set({ serverId: 's0', roomId, peers: ['ann', 'bob'] });
    expect(await seat(roomId, 'cid', 0)).toBe(true);
    expect(await seat(roomId, 'dan', 0, { liveServers: ['s0'] })).toBe(false);
    const other = randomUUID();
    // The floor stands for members the store may have lost: seats held count only above it.
    expect(await seat(other, 'ann', 0, { floor: 2 })).toBe(false);
    expect(await seat(other, 'ann', 0, { floor: 1 })).toBe(true);
    expect(await seat(other, 'bob', 0, { floor: 1 })).toBe(true);
    expect(await seat(other, 'cid', 0, { floor: 1 })).toBe(false);
    await store.releaseSeat(other, 'ann');
    expect(await seat(other, 'cid', 0, { floor: 1 })).toBe(true);
    // A deleted room's seats go with it.
    await store.remove(other);
    expect(await seat(other, 'dan', 0)).toBe(true);
    expect(await seat(other, 'eve', 0)).toBe(true);
  });
});
