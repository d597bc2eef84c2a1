import { randomBytes } from 'node:crypto';
import {
  FRIEND_ROUTES,
  LOADTEST_ROUTES,
  LOADTEST_SECRET_HEADER,
  ROOM_ROUTES,
  ROUTES,
  type SeedAccount,
} from '@voice/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { pairsOf } from './LoadtestService.ts';

const SECRET = `lt-${randomBytes(12).toString('hex')}`;
let server: TestServer;
let closed: TestServer;

beforeAll(async () => {
  [server, closed] = await Promise.all([TestServer.start({ LOADTEST_SECRET: SECRET }), TestServer.start()]);
});
afterAll(async () => {
  await Promise.all([server?.close(), closed?.close()]);
});

/** A prefix of this run alone: runs share one database. */
const newPrefix = () => `t${randomBytes(5).toString('hex')}_`;

const seed = (body: unknown, secret: string | null = SECRET, on = server) =>
  on.request('POST', LOADTEST_ROUTES.seed, {
    body,
    headers: secret === null ? {} : { [LOADTEST_SECRET_HEADER]: secret },
  });
const cleanup = (prefix: string) =>
  server.request('POST', LOADTEST_ROUTES.cleanup, {
    body: { prefix },
    headers: { [LOADTEST_SECRET_HEADER]: SECRET },
  });
const seeded = async (body: Record<string, unknown>): Promise<SeedAccount[]> => {
  const res = await seed(body);
  if (res.status !== 200) throw new Error(`seed failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.accounts;
};
const friendIdsOf = async (token: string): Promise<string[]> =>
  (await server.request('GET', FRIEND_ROUTES.friends, { token })).body.friends.map(
    (f: { id: string }) => f.id,
  );
const stillServing = async () => expect((await server.request('GET', ROUTES.health)).status).toBe(200);

describe('without LOADTEST_SECRET', () => {
  it('answers 404 on both routes, exactly like an unknown path', async () => {
    const unknown = await closed.request('POST', '/loadtest/nothing', { body: {} });
    expect(unknown.status).toBe(404);
    for (const route of [LOADTEST_ROUTES.seed, LOADTEST_ROUTES.cleanup]) {
      const res = await closed.request('POST', route, {
        body: { prefix: 'lt_', count: 1 },
        headers: { [LOADTEST_SECRET_HEADER]: SECRET },
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    }
  });
});

describe('the secret', () => {
  it('refuses a missing, wrong, or almost right secret with 403 and changes nothing', async () => {
    const prefix = newPrefix();
    for (const secret of [null, '', 'wrong', `${SECRET}x`, SECRET.slice(0, -1)]) {
      const res = await seed({ prefix, count: 1 }, secret);
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({ code: 'FORBIDDEN', message: 'Invalid load-test secret' });
    }
    const res = await server.request('POST', LOADTEST_ROUTES.cleanup, {
      body: { prefix },
      headers: { [LOADTEST_SECRET_HEADER]: 'wrong' },
    });
    expect(res.status).toBe(403);
    const count = await server.services.db('users').whereLike('username', `${prefix}%`).count({ n: '*' });
    expect(Number(count[0]?.n)).toBe(0);
  });
});

describe('bad input', () => {
  it('answers 400 naming the field for each bad one, and keeps serving', async () => {
    const prefix = newPrefix();
    const cases: Array<[unknown, string, RegExp]> = [
      [{ prefix, count: 0 }, 'count', /At least 1/],
      [{ prefix, count: 501 }, 'count', /At most 500 per call/],
      [{ prefix, count: 2.5 }, 'count', /whole number/],
      [{ prefix, count: '5' }, 'count', /number/],
      [{ prefix }, 'count', /count is required/],
      [{ prefix: 'Ab!', count: 1 }, 'prefix', /lowercase letters, digits and underscore/],
      [{ prefix: 'lt-x', count: 1 }, 'prefix', /lowercase letters, digits and underscore/],
      [{ prefix: 'x', count: 1 }, 'prefix', /At least 2/],
      [{ prefix: 'a'.repeat(17), count: 1 }, 'prefix', /At most 16/],
      [{ prefix: 42, count: 1 }, 'prefix', /prefix is required/],
      [{ count: 1 }, 'prefix', /prefix is required/],
      [{ prefix, count: 1, befriend: 'some' }, 'befriend', /Must be one of none, pairs, all/],
      [{ prefix, count: 51, befriend: 'all' }, 'befriend', /only allowed for count ≤ 50/],
      [{ prefix, count: 1, start: -1 }, 'start', /At least 0/],
      [{ prefix, count: 1, start: 1e9 }, 'start', /At most 999999/],
      [{ prefix, count: 1, admin: true }, '', /admin/],
    ];
    for (const [body, field, message] of cases) {
      const res = await seed(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION');
      if (field) expect(res.body.error.field).toBe(field);
      expect(res.body.error.message).toMatch(message);
    }
    const badCleanup = await server.request('POST', LOADTEST_ROUTES.cleanup, {
      body: { prefix: 'A' },
      headers: { [LOADTEST_SECRET_HEADER]: SECRET },
    });
    expect(badCleanup.status).toBe(400);
    expect(badCleanup.body.error.field).toBe('prefix');
    await stillServing();
  });

  it('refuses a body that is not JSON (400) or too big (413)', async () => {
    const headers = { [LOADTEST_SECRET_HEADER]: SECRET };
    const notJson = await server.request('POST', LOADTEST_ROUTES.seed, { raw: '{prefix: lt', headers });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('INVALID_JSON');
    const big = JSON.stringify({ prefix: 'lt_', count: 1, pad: 'x'.repeat(200 * 1024) });
    const tooBig = await server.request('POST', LOADTEST_ROUTES.seed, { raw: big, headers });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    await stillServing();
  });
});

describe('seeding', () => {
  it('creates 50 befriended in pairs, and reuses them on a second call', async () => {
    const prefix = newPrefix();
    const first = await seeded({ prefix, count: 50, befriend: 'pairs' });
    expect(first.map((a) => a.username)).toEqual(Array.from({ length: 50 }, (_, i) => `${prefix}${i}`));
    expect(first[7]?.displayName).toBe('LT 0007');
    const rows = await server.services.db('users').whereIn(
      'id',
      first.map((a) => a.id),
    );
    expect(rows.every((row) => row.is_loadtest === true)).toBe(true);
    expect(await friendIdsOf(first[0]?.token as string)).toEqual([first[1]?.id]);
    expect(await friendIdsOf(first[49]?.token as string)).toEqual([first[48]?.id]);

    const again = await seeded({ prefix, count: 50, befriend: 'pairs' });
    expect(again.map((a) => a.id)).toEqual(first.map((a) => a.id));
    expect(again[0]?.token).not.toBe(first[0]?.token);
    expect(await friendIdsOf(again[0]?.token as string)).toEqual([first[1]?.id]);
    const friendships = await server.services.db('friendships').whereIn(
      'user_id',
      first.map((a) => a.id),
    );
    expect(friendships).toHaveLength(50);
    expect((await cleanup(prefix)).body).toEqual({ removed: 50 });
  });

  it('seeds the most one call may (500) in one go, and removes them all', async () => {
    const prefix = newPrefix();
    const accounts = await seeded({ prefix, count: 500, start: 999_500, befriend: 'pairs' });
    expect(accounts).toHaveLength(500);
    expect(new Set(accounts.map((a) => a.token)).size).toBe(500);
    expect(accounts[499]?.username).toBe(`${prefix}999999`);
    expect((await server.request('GET', ROUTES.me, { token: accounts[499]?.token })).status).toBe(200);
    expect((await cleanup(prefix)).body).toEqual({ removed: 500 });
  });

  it('befriends everyone with everyone for `all`, and shards with `start`', async () => {
    const prefix = newPrefix();
    const shard = await seeded({ prefix, count: 4, start: 10, befriend: 'all' });
    expect(shard.map((a) => a.username)).toEqual([10, 11, 12, 13].map((i) => `${prefix}${i}`));
    expect(shard[0]?.displayName).toBe('LT 0010');
    const others = shard.slice(1).map((a) => a.id);
    expect((await friendIdsOf(shard[0]?.token as string)).sort()).toEqual(others.sort());
    expect((await cleanup(prefix)).body).toEqual({ removed: 4 });
  });

  it('hands back tokens that sign in (GET /auth/me, the app socket) and no password that does', async () => {
    const prefix = newPrefix();
    const [account] = await seeded({ prefix, count: 1 });
    const me = await server.request('GET', ROUTES.me, { token: account?.token });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: account?.id, username: `${prefix}0`, display_name: 'LT 0000' });
    expect(me.body.user.onboarding_completed).toBe(true);
    const socket = await SocketClient.connect(server.baseUrl, account?.token as string, {
      origin: 'http://app.test',
    });
    socket.close();
    for (const password of ['', 'loadtest$no-password', 'secret123']) {
      const login = await server.request('POST', ROUTES.login, {
        body: { username: account?.username, password },
      });
      expect(login.status).not.toBe(200);
    }
    await cleanup(prefix);
  });

  it("refuses (409) a batch whose username is a person's, and leaves that person and the batch alone", async () => {
    const prefix = newPrefix();
    const person = await signUp(server, { username: `${prefix}3` });
    const res = await seed({ prefix, count: 5 });
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({
      code: 'USERNAME_TAKEN',
      field: 'prefix',
      message: `Username ${prefix}3 belongs to a real account: choose another prefix`,
    });
    // One transaction: none of the other four was created.
    const rows = await server.services.db('users').whereLike('username', `${prefix}%`);
    expect(rows.map((row) => [row.username, row.is_loadtest])).toEqual([[`${prefix}3`, false]]);
    const login = await server.request('POST', ROUTES.login, {
      body: { username: person.username, password: person.password },
    });
    expect(login.status).toBe(200);
    expect((await cleanup(prefix)).body).toEqual({ removed: 0 });
    expect((await server.request('GET', ROUTES.me, { token: person.token })).status).toBe(200);
  });
});

describe('test accounts live apart from people', () => {
  it('are not found by people, while test accounts find each other', async () => {
    const prefix = newPrefix();
    const accounts = await seeded({ prefix, count: 3 });
    const person = await signUp(server);
    for (const searchTerm of [prefix, `${prefix}1`, 'LT 000']) {
      const found = await server.request('POST', FRIEND_ROUTES.search, {
        token: person.token,
        body: { searchTerm },
      });
      expect(found.status).toBe(200);
      const ids = found.body.users.map((u: { id: string }) => u.id);
      expect(ids.filter((id: string) => accounts.some((a) => a.id === id))).toEqual([]);
    }
    const byTest = await server.request('POST', FRIEND_ROUTES.search, {
      token: accounts[0]?.token,
      body: { searchTerm: prefix },
    });
    expect(byTest.body.users.map((u: { username: string }) => u.username).sort()).toEqual([
      `${prefix}1`,
      `${prefix}2`,
    ]);
    const forPerson = await server.request('POST', FRIEND_ROUTES.search, {
      token: accounts[0]?.token,
      body: { searchTerm: person.username },
    });
    expect(forPerson.body.users).toEqual([]);
    await cleanup(prefix);
  });

  it('cannot exchange friend requests with people, either way', async () => {
    const prefix = newPrefix();
    const [account] = await seeded({ prefix, count: 1 });
    const person = await signUp(server);
    const fromTest = await server.request('POST', FRIEND_ROUTES.sendRequest, {
      token: account?.token,
      body: { userId: person.user.id },
    });
    const fromPerson = await server.request('POST', FRIEND_ROUTES.sendRequest, {
      token: person.token,
      body: { userId: account?.id },
    });
    for (const res of [fromTest, fromPerson]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({
        code: 'FORBIDDEN',
        field: 'userId',
        message: 'Load-test accounts and real accounts cannot send each other friend requests',
      });
    }
    const requests = await server.services.db('friend_requests').where('from_user_id', person.user.id);
    expect(requests).toEqual([]);
    await cleanup(prefix);
  });
});

describe('cleanup', () => {
  it("removes exactly the prefix's test accounts with what hangs off them; people and other prefixes stay", async () => {
    const prefix = newPrefix();
    const other = newPrefix();
    const accounts = await seeded({ prefix, count: 6, befriend: 'pairs' });
    const [stranger] = await seeded({ prefix: other, count: 1 });
    const person = await signUp(server, { username: `${prefix}person` });
    const room = await server.request('POST', ROOM_ROUTES.rooms, {
      token: accounts[0]?.token,
      body: { name: 'load test', type: 'public' },
    });
    expect(room.status).toBe(201);
    const socket = await SocketClient.connect(server.baseUrl, accounts[1]?.token as string, {
      origin: 'http://app.test',
    });
    const closedSocket = new Promise<void>((resolve) => socket.peer.on('close', () => resolve()));

    expect((await cleanup(prefix)).body).toEqual({ removed: 6 });
    await closedSocket;
    const ids = accounts.map((a) => a.id);
    const { db } = server.services;
    expect(await db('users').whereIn('id', ids)).toEqual([]);
    expect(await db('sessions').whereIn('user_id', ids)).toEqual([]);
    expect(await db('friendships').whereIn('user_id', ids)).toEqual([]);
    expect(await db('rooms').where('id', room.body.room.id)).toEqual([]);
    expect((await server.request('GET', ROUTES.me, { token: accounts[2]?.token })).status).toBe(401);

    expect((await server.request('GET', ROUTES.me, { token: person.token })).body.user.username).toBe(
      `${prefix}person`,
    );
    expect((await server.request('GET', ROUTES.me, { token: stranger?.token })).status).toBe(200);
    expect((await cleanup(prefix)).body).toEqual({ removed: 0 });
    expect((await cleanup(other)).body).toEqual({ removed: 1 });
    await stillServing();
  });
});

describe('pairsOf()', () => {
  it('pairs neighbours (the last of an odd batch alone), or everyone with everyone', () => {
    expect(pairsOf(['a', 'b', 'c'], 'pairs')).toEqual([['a', 'b']]);
    expect(pairsOf(['a', 'b', 'c'], 'all')).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ]);
    expect(pairsOf(['a', 'b'], 'none')).toEqual([]);
  });
});
