/**
 * The live room list and "in room X" (issue 10 part 3) over two API processes on one Redis:
 * tabs that watch the room list hear of every room they may see being created, changed,
 * filled, emptied and deleted, whichever process did it; friends hear where someone went,
 * once, with the room's name only when they may see it. Media servers are stood in for on
 * the bus.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, signUpFriends, TestServer } from '../testing/TestServer.ts';
import { FakeMediaServers, until } from './roomTesting.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** How long a tab waits to be sure nothing comes. */
const QUIET_MS = 400;

type Account = Awaited<ReturnType<typeof signUp>>;

describe('rooms live over the app socket, two API processes on one Redis', () => {
  let api1: TestServer;
  let api2: TestServer;
  let media: FakeMediaServers;
  const serverId = `m-${randomUUID()}`;
  const open: SocketClient[] = [];

  const connect = async (api: TestServer, account: Account, { watch = true } = {}) => {
    const client = await SocketClient.connect(api.baseUrl, account.token, { origin: 'http://app.test' });
    open.push(client);
    if (watch) expect(await client.request('watch-rooms', {})).toEqual({ ok: true });
    return client;
  };
  const createRoom = async (api: TestServer, account: Account, body: Record<string, unknown> = {}) => {
    const res = await api.request('POST', '/rooms', {
      token: account.token,
      body: { name: `Room ${randomUUID().slice(0, 8)}`, type: 'public', ...body },
    });
    expect(res.status).toBe(201);
    return res.body.room as { id: string; name: string };
  };
  const aboutRoom = (roomId: string) => (data: Record<string, unknown>) =>
    (data.room as { id?: string } | undefined)?.id === roomId || data.roomId === roomId;

  beforeAll(async () => {
    const shared = {
      REDIS_URL,
      REDIS_PREFIX: `test:${randomUUID()}:`,
      JWT_SECRET: randomUUID() + randomUUID(),
    };
    api1 = await TestServer.start(shared);
    api2 = await TestServer.start(shared);
    media = new FakeMediaServers(api1);
    await media.announce(serverId);
    // The second process hears the announcement through Redis a moment later.
    const deadline = Date.now() + 5000;
    while (!api2.services.mediaServers.get(serverId) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
  });
  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });
  afterAll(async () => {
    media?.stop();
    await api2?.close();
    await api1?.close();
  });

  it('tells watching tabs on either process of a room created, filled, changed, emptied and deleted', async () => {
    const admin = await signUp(api1);
    const viewer = await signUp(api1);
    const watching = await connect(api2, viewer);
    const notWatching = await connect(api2, viewer, { watch: false });
    const stopped = await connect(api1, viewer);
    expect(await stopped.request('unwatch-rooms', {})).toEqual({ ok: true });

    const room = await createRoom(api1, admin);
    const created = await watching.waitFor('room-updated', aboutRoom(room.id));
    expect(created.data.room).toMatchObject({ id: room.id, name: room.name, memberCount: 0 });

    let since = watching.received.length;
    await media.members(serverId, room.id, [admin.user.id, viewer.user.id]);
    const filled = await watching.waitFor('room-updated', aboutRoom(room.id), { since });
    expect(filled.data.room).toMatchObject({ memberCount: 2 });
    expect(
      (filled.data.room as { participants: Array<{ id: string }> }).participants.map((p) => p.id),
    ).toEqual(expect.arrayContaining([admin.user.id, viewer.user.id]));

    since = watching.received.length;
    const renamed = await api2.request('PATCH', `/rooms/${room.id}`, {
      token: admin.token,
      body: { name: 'Renamed live' },
    });
    expect(renamed.status).toBe(200);
    const changed = await watching.waitFor('room-updated', aboutRoom(room.id), { since });
    expect(changed.data.room).toMatchObject({ name: 'Renamed live', memberCount: 2 });

    since = watching.received.length;
    await media.members(serverId, room.id, [admin.user.id]);
    const emptier = await watching.waitFor('room-updated', aboutRoom(room.id), { since });
    expect(emptier.data.room).toMatchObject({ memberCount: 1 });

    expect((await api1.request('DELETE', `/rooms/${room.id}`, { token: admin.token })).status).toBe(204);
    await watching.waitFor('room-removed', aboutRoom(room.id));

    // The same media server's word, heard by both processes, is told once.
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const updates = watching.received.filter(
      (r) => r.method === 'room-updated' && aboutRoom(room.id)(r.data),
    );
    expect(updates).toHaveLength(4);
    for (const tab of [notWatching, stopped]) {
      expect(tab.received.filter((r) => r.method.startsWith('room-'))).toEqual([]);
    }
  });

  it('tells a room that fills in quick steps, last, as it ends up: no reading of it overtakes a later one', async () => {
    const admin = await signUp(api1);
    const watching = await connect(api2, admin);
    const room = await createRoom(api1, admin);
    await watching.waitFor('room-updated', aboutRoom(room.id));
    const people = Array.from({ length: 12 }, () => randomUUID());
    for (let i = 1; i <= people.length; i++) await media.members(serverId, room.id, people.slice(0, i));
    await until(() => lastCount() === people.length);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    // Counts only grow, and the last word is the room as it ended.
    const counts = told();
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(lastCount()).toBe(people.length);

    function told(): number[] {
      return watching.received
        .filter((r) => r.method === 'room-updated' && aboutRoom(room.id)(r.data))
        .map((r) => (r.data.room as { memberCount: number }).memberCount);
    }
    function lastCount(): number | undefined {
      return told().at(-1);
    }
  });

  it('tells only those who may see a private room, and takes a room away from those who no longer may', async () => {
    const admin = await signUp(api1);
    const outsider = await signUp(api1);
    const adminTab = await connect(api1, admin);
    const outsiderTab = await connect(api2, outsider);

    const secret = await createRoom(api2, admin, { type: 'private' });
    await adminTab.waitFor('room-updated', aboutRoom(secret.id));
    await media.members(serverId, secret.id, [admin.user.id]);
    await adminTab.waitFor('room-updated', (data) => aboutRoom(secret.id)(data) && memberCount(data) === 1);
    expect((await api1.request('DELETE', `/rooms/${secret.id}`, { token: admin.token })).status).toBe(204);
    await adminTab.waitFor('room-removed', aboutRoom(secret.id));

    // Public, then private: the outsider drops it and hears no more of it.
    const closing = await createRoom(api1, admin);
    await outsiderTab.waitFor('room-updated', aboutRoom(closing.id));
    await api1.request('PATCH', `/rooms/${closing.id}`, { token: admin.token, body: { type: 'private' } });
    await outsiderTab.waitFor('room-removed', aboutRoom(closing.id));
    await adminTab.waitFor(
      'room-updated',
      (data) => aboutRoom(closing.id)(data) && roomType(data) === 'private',
    );
    const since = outsiderTab.received.length;
    await media.members(serverId, closing.id, [admin.user.id]);
    await api1.request('DELETE', `/rooms/${closing.id}`, { token: admin.token });
    await adminTab.waitFor('room-removed', aboutRoom(closing.id));

    expect(await outsiderTab.stillNo('room-updated', aboutRoom(secret.id), QUIET_MS)).toBe(true);
    expect(outsiderTab.received.filter((r) => aboutRoom(secret.id)(r.data))).toEqual([]);
    expect(outsiderTab.received.slice(since).filter((r) => r.method.startsWith('room-'))).toEqual([]);
  });

  it('lets an invitee see a private room from the invitation on', async () => {
    const [admin, friend] = await signUpFriends(api1);
    const friendTab = await connect(api2, friend);
    const room = await createRoom(api1, admin, { type: 'private' });
    expect(await friendTab.stillNo('room-updated', aboutRoom(room.id), QUIET_MS)).toBe(true);
    const invited = await api1.request('POST', `/rooms/${room.id}/invitations`, {
      token: admin.token,
      body: { userIds: [friend.user.id] },
    });
    expect(invited.status).toBe(201);
    await friendTab.waitFor('room-updated', aboutRoom(room.id));
  });

  it('refuses watch and unwatch requests that carry anything, and keeps the socket serving', async () => {
    const account = await signUp(api1);
    const tab = await connect(api1, account, { watch: false });
    for (const method of ['watch-rooms', 'unwatch-rooms']) {
      for (const data of [{ roomId: randomUUID() }, { all: true }, { q: 'x'.repeat(10_000) }]) {
        await expect(tab.request(method, data)).rejects.toThrow(/VALIDATION/);
      }
    }
    // Twice is the same as once, either way.
    expect(await tab.request('unwatch-rooms', {})).toEqual({ ok: true });
    expect(await tab.request('watch-rooms', {})).toEqual({ ok: true });
    expect(await tab.request('watch-rooms')).toEqual({ ok: true });
    const room = await createRoom(api2, account);
    await tab.waitFor('room-updated', aboutRoom(room.id));
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const told = tab.received.filter((r) => r.method === 'room-updated' && aboutRoom(room.id)(r.data));
    expect(told).toHaveLength(1);
  });

  it('tells friends, once, which room someone is in: by name when they may see it, otherwise not', async () => {
    const [mover, friend] = await signUpFriends(api1);
    const stranger = await signUp(api1);
    const friendTabs = [
      await connect(api1, friend, { watch: false }),
      await connect(api2, friend, { watch: false }),
    ];
    const strangerTab = await connect(api2, stranger, { watch: false });
    const inRoom = (roomId: string | null) => (data: Record<string, unknown>) =>
      data.userId === mover.user.id && ((data.room as { id?: string } | null)?.id ?? null) === roomId;

    const open = await createRoom(api1, mover, { name: 'Open lounge' });
    await media.members(serverId, open.id, [mover.user.id]);
    for (const tab of friendTabs) {
      const heard = await tab.waitFor('friend-room-changed', inRoom(open.id));
      expect(heard.data).toEqual({ userId: mover.user.id, room: { id: open.id, name: 'Open lounge' } });
    }
    expect(await friendList(api2, friend)).toEqual([
      expect.objectContaining({ id: mover.user.id, room: { id: open.id, name: 'Open lounge' } }),
    ]);

    // Off to a private room the friend may not see: where, but not its name.
    const hidden = await createRoom(api2, mover, { type: 'private', name: 'Hidden den' });
    await media.members(serverId, open.id, []);
    await media.members(serverId, hidden.id, [mover.user.id]);
    for (const tab of friendTabs) {
      const heard = await tab.waitFor('friend-room-changed', inRoom(hidden.id));
      expect(heard.data).toEqual({ userId: mover.user.id, room: { id: hidden.id, name: null } });
    }
    expect(await friendList(api1, friend)).toEqual([
      expect.objectContaining({ id: mover.user.id, room: { id: hidden.id, name: null } }),
    ]);

    // The room is deleted with them in it: they are in no room.
    await api1.request('DELETE', `/rooms/${hidden.id}`, { token: mover.token });
    for (const tab of friendTabs) await tab.waitFor('friend-room-changed', inRoom(null), { since: 0 });
    expect(await friendList(api2, friend)).toEqual([
      expect.objectContaining({ id: mover.user.id, room: null }),
    ]);

    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    for (const tab of friendTabs) {
      const told = tab.received.filter((r) => r.method === 'friend-room-changed').map((r) => r.data.room);
      // Entering the lounge is told once, on each tab; leaving it tells where they are by then.
      expect(told.filter((room) => (room as { id?: string } | null)?.id === open.id)).toHaveLength(1);
      expect(told.at(-1)).toBeNull();
    }
    expect(strangerTab.received.filter((r) => r.method === 'friend-room-changed')).toEqual([]);
  });
});

async function friendList(api: TestServer, account: Account) {
  const res = await api.request('GET', '/users/friends', { token: account.token });
  expect(res.status).toBe(200);
  return res.body.friends;
}

function memberCount(data: Record<string, unknown>): number | undefined {
  return (data.room as { memberCount?: number } | undefined)?.memberCount;
}

function roomType(data: Record<string, unknown>): string | undefined {
  return (data.room as { type?: string } | undefined)?.type;
}

describe('rooms live in one API process with memory stores', () => {
  let api: TestServer;
  let media: FakeMediaServers;
  const serverId = `m-${randomUUID()}`;

  beforeAll(async () => {
    api = await TestServer.start({ REDIS_URL: '' });
    media = new FakeMediaServers(api);
    await media.announce(serverId);
  });
  afterAll(async () => {
    media?.stop();
    await api?.close();
  });

  it('tells watchers of member counts and friends of the room, once each', async () => {
    const [mover, friend] = await signUpFriends(api);
    const tab = await SocketClient.connect(api.baseUrl, friend.token, { origin: 'http://app.test' });
    try {
      await tab.request('watch-rooms', {});
      const res = await api.request('POST', '/rooms', {
        token: mover.token,
        body: { name: 'Memory lane', type: 'public' },
      });
      const roomId = res.body.room.id as string;
      await media.members(serverId, roomId, [mover.user.id]);
      await media.members(serverId, roomId, [mover.user.id]);
      const room = await tab.waitFor('friend-room-changed', (data) => data.userId === mover.user.id);
      expect(room.data.room).toEqual({ id: roomId, name: 'Memory lane' });
      await tab.waitFor('room-updated', (data) => memberCount(data) === 1);
      // A goodbye from a server that does not host the room changes nothing.
      await media.members(`other-${serverId}`, roomId, []);
      await media.members(serverId, roomId, []);
      await tab.waitFor('friend-room-changed', (data) => data.userId === mover.user.id && data.room === null);
      await tab.waitFor('room-updated', (data) => memberCount(data) === 0);
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
      expect(tab.received.filter((r) => r.method === 'friend-room-changed')).toHaveLength(2);
      expect(tab.received.filter((r) => r.method === 'room-updated').map((r) => memberCount(r.data))).toEqual(
        [0, 1, 0],
      );
    } finally {
      tab.close();
    }
  });
});
