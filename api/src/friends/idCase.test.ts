import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';

// User ids are UUIDs, and a UUID may be written in either letter case: every route and
// socket request must treat `ABC…` and `abc…` as the same person.
let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

type Account = Awaited<ReturnType<typeof signUp>>;
const req = (a: Account, method: string, route: string, body?: unknown) =>
  server.request(method, route, { token: a.token, body });
const upper = (id: string) => id.toUpperCase();
const friendIds = async (a: Account) =>
  (await req(a, 'GET', '/users/friends')).body.friends.map((f: { id: string }) => f.id);

describe('user ids in upper case', () => {
  it('cannot befriend yourself', async () => {
    const a = await signUp(server);
    const res = await req(a, 'POST', '/users/friend-request', { userId: upper(a.user.id) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('CANNOT_FRIEND_SELF');
    expect((await req(a, 'GET', '/users/friend-requests')).body.requests).toEqual([]);
  });

  it('requests sent both ways at once in mixed case pair up into one friendship', async () => {
    for (let round = 0; round < 5; round += 1) {
      const [a, b] = [await signUp(server), await signUp(server)];
      const [ab, ba] = await Promise.all([
        req(a, 'POST', '/users/friend-request', { userId: upper(b.user.id) }),
        req(b, 'POST', '/users/friend-request', { userId: a.user.id }),
      ]);
      expect([ab.body.status, ba.body.status].sort()).toEqual(['friends', 'pending']);
      expect(await friendIds(a)).toEqual([b.user.id]);
      expect(await friendIds(b)).toEqual([a.user.id]);
      expect((await req(a, 'GET', '/users/friend-requests')).body.requests).toEqual([]);
      expect((await req(b, 'GET', '/users/friend-requests')).body.requests).toEqual([]);
    }
  });

  it('accepting, rejecting, reading and unfriending take the id in any case', async () => {
    const [a, b, c] = [await signUp(server), await signUp(server), await signUp(server)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    await req(c, 'POST', '/users/friend-request', { userId: b.user.id });
    expect((await req(b, 'POST', '/users/friend-request/accept', { userId: upper(a.user.id) })).status).toBe(
      200,
    );
    expect((await req(b, 'POST', '/users/friend-request/reject', { userId: upper(c.user.id) })).status).toBe(
      200,
    );
    expect((await req(b, 'GET', '/users/friend-requests')).body.requests).toEqual([]);

    const read = await req(a, 'GET', `/users/${upper(b.user.id)}`);
    expect(read.status).toBe(200);
    expect(read.body.user.id).toBe(b.user.id);

    expect((await req(a, 'DELETE', `/users/friend/${upper(b.user.id)}`)).status).toBe(200);
    expect(await friendIds(b)).toEqual([]);
  });

  it('the socket request accept-friend-request takes an upper-case id', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    const socket = await SocketClient.connect(server.baseUrl, b.token);
    try {
      await socket.request('accept-friend-request', { userId: upper(a.user.id) });
    } finally {
      socket.close();
    }
    expect(await friendIds(a)).toEqual([b.user.id]);
  });
});
