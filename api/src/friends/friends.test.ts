import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, TestServer, uniqueName } from '../testing/TestServer.ts';

let server: TestServer;
const sockets: SocketClient[] = [];
beforeAll(async () => {
  server = await TestServer.start();
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});
afterAll(() => server?.close());

async function connect(a: Account): Promise<SocketClient> {
  const socket = await SocketClient.connect(server.baseUrl, a.token);
  sockets.push(socket);
  return socket;
}

type Account = Awaited<ReturnType<typeof signUp>>;
const req = (a: Account, method: string, route: string, body?: unknown) =>
  server.request(method, route, { token: a.token, body });
const friendIds = async (a: Account) =>
  (await req(a, 'GET', '/users/friends')).body.friends.map((f: { id: string }) => f.id);
const requestIds = async (a: Account) =>
  (await req(a, 'GET', '/users/friend-requests')).body.requests.map(
    (r: { from: { id: string } }) => r.from.id,
  );
const sentIds = async (a: Account) =>
  (await req(a, 'GET', '/users/friend-requests/sent')).body.requests.map(
    (r: { to: { id: string } }) => r.to.id,
  );

describe('friend requests', () => {
  it('sends, lists with the sender, and accepts: both become friends', async () => {
    const [a, b] = [await signUp(server, { displayName: 'Alice' }), await signUp(server)];
    const sent = await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ status: 'pending' });

    const { body } = await req(b, 'GET', '/users/friend-requests');
    expect(body.requests).toHaveLength(1);
    expect(body.requests[0].from).toEqual({
      id: a.user.id,
      username: a.username,
      display_name: 'Alice',
      avatar_url: null,
    });

    expect((await req(b, 'POST', '/users/friend-request/accept', { userId: a.user.id })).body).toEqual({
      ok: true,
    });
    expect(await friendIds(a)).toEqual([b.user.id]);
    expect(await friendIds(b)).toEqual([a.user.id]);
    expect(await requestIds(b)).toEqual([]);
  });

  it('sending twice is harmless', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    for (let i = 0; i < 2; i++) {
      expect((await req(a, 'POST', '/users/friend-request', { userId: b.user.id })).body).toEqual({
        status: 'pending',
      });
    }
    expect(await requestIds(b)).toEqual([a.user.id]);
  });

  it('makes two people who asked each other friends', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    expect((await req(b, 'POST', '/users/friend-request', { userId: a.user.id })).body).toEqual({
      status: 'friends',
    });
    expect(await friendIds(a)).toEqual([b.user.id]);
    expect(await requestIds(a)).toEqual([]);
    expect(await requestIds(b)).toEqual([]);
  });

  it('refuses a request to yourself (400), to a friend (409) and to nobody (404)', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    const self = await req(a, 'POST', '/users/friend-request', { userId: a.user.id });
    expect(self.status).toBe(400);
    expect(self.body.error.code).toBe('CANNOT_FRIEND_SELF');

    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    await req(b, 'POST', '/users/friend-request/accept', { userId: a.user.id });
    const again = await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_FRIENDS');

    const nobody = await req(a, 'POST', '/users/friend-request', {
      userId: '00000000-0000-4000-8000-000000000000',
    });
    expect(nobody.status).toBe(404);
    expect(nobody.body.error.code).toBe('USER_NOT_FOUND');
  });

  it.each([[{}], [{ userId: 'not-a-uuid' }], [{ userId: 42 }]])(
    'refuses the body %j with 400 VALIDATION',
    async (body) => {
      const a = await signUp(server);
      const res = await req(a, 'POST', '/users/friend-request', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION', field: 'userId' });
    },
  );

  it('rejecting removes the request; accepting or rejecting a missing one is 404', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    expect((await req(b, 'POST', '/users/friend-request/reject', { userId: a.user.id })).status).toBe(200);
    expect(await requestIds(b)).toEqual([]);
    expect(await friendIds(b)).toEqual([]);
    for (const action of ['accept', 'reject']) {
      const res = await req(b, 'POST', `/users/friend-request/${action}`, { userId: a.user.id });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('FRIEND_REQUEST_NOT_FOUND');
    }
    // The sender cannot accept their own request.
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    expect((await req(a, 'POST', '/users/friend-request/accept', { userId: b.user.id })).status).toBe(404);
  });

  it('unfriending removes both sides; again is 404; a bad id is 400', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    await req(b, 'POST', '/users/friend-request/accept', { userId: a.user.id });
    expect((await req(b, 'DELETE', `/users/friend/${a.user.id}`)).body).toEqual({ ok: true });
    expect(await friendIds(a)).toEqual([]);
    expect(await friendIds(b)).toEqual([]);
    const again = await req(b, 'DELETE', `/users/friend/${a.user.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('NOT_FRIENDS');
    expect((await req(b, 'DELETE', '/users/friend/xyz')).status).toBe(400);
  });

  it('requires a session on every route', async () => {
    for (const [method, route] of [
      ['POST', '/users/search'],
      ['GET', '/users/friends'],
      ['GET', '/users/friends-with-call-status'],
      ['GET', '/users/friend-requests'],
      ['POST', '/users/friend-request'],
      ['POST', '/users/friend-request/accept'],
      ['POST', '/users/friend-request/reject'],
      ['DELETE', '/users/friend/00000000-0000-4000-8000-000000000000'],
      ['GET', '/users/friend-requests/sent'],
      ['DELETE', '/users/friend-request/00000000-0000-4000-8000-000000000000'],
    ] as const) {
      expect(
        (await server.request(method, route, { body: method === 'POST' ? {} : undefined })).status,
        route,
      ).toBe(401);
    }
  });
});

describe('sent requests', () => {
  it('lists the requests you sent, newest first, with each recipient; never the incoming ones', async () => {
    const a = await signUp(server, { displayName: 'Alice' });
    const b = await signUp(server, { displayName: 'Bob' });
    const c = await signUp(server);
    const d = await signUp(server);
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    await req(a, 'POST', '/users/friend-request', { userId: c.user.id });
    await req(d, 'POST', '/users/friend-request', { userId: a.user.id });

    const res = await req(a, 'GET', '/users/friend-requests/sent');
    expect(res.status).toBe(200);
    expect(res.body.requests.map((r: { to: { id: string } }) => r.to.id)).toEqual([c.user.id, b.user.id]);
    expect(res.body.requests[1]).toMatchObject({
      to: { id: b.user.id, username: b.username, display_name: 'Bob', avatar_url: null },
    });
    expect(Date.parse(res.body.requests[1].created_at)).not.toBeNaN();
    expect(JSON.stringify(res.body)).not.toContain(b.email);
    expect(await sentIds(b)).toEqual([]);

    // Accepted requests leave the list.
    await req(b, 'POST', '/users/friend-request/accept', { userId: a.user.id });
    expect(await sentIds(a)).toEqual([c.user.id]);
  });

  it('cancelling withdraws your request; again, or with nothing sent, is 404', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    const res = await req(a, 'DELETE', `/users/friend-request/${b.user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await sentIds(a)).toEqual([]);
    expect(await requestIds(b)).toEqual([]);

    const again = await req(a, 'DELETE', `/users/friend-request/${b.user.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('FRIEND_REQUEST_NOT_FOUND');
    const unknown = await req(a, 'DELETE', '/users/friend-request/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('FRIEND_REQUEST_NOT_FOUND');

    // A new request after cancelling works as the first did.
    expect((await req(a, 'POST', '/users/friend-request', { userId: b.user.id })).body).toEqual({
      status: 'pending',
    });
    expect(await requestIds(b)).toEqual([a.user.id]);
  });

  it("cannot cancel someone else's request: the recipient or a third person gets 404 and nothing changes", async () => {
    const [a, b, c] = [await signUp(server), await signUp(server), await signUp(server)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    for (const [who, target] of [
      [b, a],
      [c, b],
      [c, a],
    ] as const) {
      const res = await req(who, 'DELETE', `/users/friend-request/${target.user.id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('FRIEND_REQUEST_NOT_FOUND');
    }
    expect(await sentIds(a)).toEqual([b.user.id]);
    expect(await requestIds(b)).toEqual([a.user.id]);
  });

  it('cancelling does not touch a friendship', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    await req(b, 'POST', '/users/friend-request/accept', { userId: a.user.id });
    expect((await req(a, 'DELETE', `/users/friend-request/${b.user.id}`)).status).toBe(404);
    expect(await friendIds(a)).toEqual([b.user.id]);
  });

  it.each(['not-a-uuid', '123', "1' OR '1'='1", `${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}x`])(
    'refuses to cancel with the malformed id %s (400 VALIDATION)',
    async (id) => {
      const a = await signUp(server);
      const res = await req(a, 'DELETE', `/users/friend-request/${encodeURIComponent(id)}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION', field: 'id' });
    },
  );
});

describe('friend request events', () => {
  it('a sent request reaches the recipient and the sender’s other tabs', async () => {
    const [a, b] = [
      await signUp(server, { displayName: 'Alice' }),
      await signUp(server, { displayName: 'Bob' }),
    ];
    const [senderTab, recipient] = [await connect(a), await connect(b)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    const received = await recipient.waitFor('friend-request-received');
    expect(received.data.from).toMatchObject({ id: a.user.id, display_name: 'Alice' });
    const sent = await senderTab.waitFor('friend-request-sent');
    expect(sent.data.to).toEqual({
      id: b.user.id,
      username: b.username,
      display_name: 'Bob',
      avatar_url: null,
    });
    expect(Date.parse(sent.data.created_at as string)).not.toBeNaN();
  });

  it('cancelling tells the recipient’s tabs and the sender’s other tabs', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    const [senderTab, recipient1, recipient2] = [await connect(a), await connect(b), await connect(b)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    await recipient1.waitFor('friend-request-received');
    await req(a, 'DELETE', `/users/friend-request/${b.user.id}`);
    for (const tab of [recipient1, recipient2]) {
      await tab.waitFor('friend-request-cancelled', (d) => d.userId === a.user.id);
    }
    await senderTab.waitFor('friend-request-cancelled', (d) => d.userId === b.user.id);
  });

  it('a failed cancel tells nobody', async () => {
    const [a, b, c] = [await signUp(server), await signUp(server), await signUp(server)];
    const [sender, recipient] = [await connect(a), await connect(b)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    await recipient.waitFor('friend-request-received');
    await req(c, 'DELETE', `/users/friend-request/${b.user.id}`);
    await req(b, 'DELETE', `/users/friend-request/${a.user.id}`);
    expect(await recipient.stillNo('friend-request-cancelled', () => true, 300)).toBe(true);
    expect(await sender.stillNo('friend-request-cancelled', () => true, 10)).toBe(true);
  });

  it('rejecting tells the sender, naming the person who rejected', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    const [sender, recipient] = [await connect(a), await connect(b)];
    await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
    await recipient.waitFor('friend-request-received');
    await req(b, 'POST', '/users/friend-request/reject', { userId: a.user.id });
    await sender.waitFor('friend-request-rejected', (d) => d.userId === b.user.id);
    await recipient.waitFor('friend-request-rejected', (d) => d.userId === a.user.id);
    // The sender's search result offers "Add" again.
    const search = await req(a, 'POST', '/users/search', { searchTerm: b.username });
    expect(search.body.users.find((u: { id: string }) => u.id === b.user.id)?.relationship).toBe('none');
  });
});

describe('races: always one consistent result', () => {
  it('A and B requesting each other at once become friends', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await signUp(server), await signUp(server)];
      const results = await Promise.all([
        req(a, 'POST', '/users/friend-request', { userId: b.user.id }),
        req(b, 'POST', '/users/friend-request', { userId: a.user.id }),
      ]);
      expect(results.map((r) => r.body.status).sort()).toEqual(['friends', 'pending']);
      expect(await friendIds(a)).toEqual([b.user.id]);
      expect(await requestIds(a)).toEqual([]);
      expect(await requestIds(b)).toEqual([]);
    }
  });

  it('accept and reject at once: exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await signUp(server), await signUp(server)];
      await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
      const [accepted, rejected] = await Promise.all([
        req(b, 'POST', '/users/friend-request/accept', { userId: a.user.id }),
        req(b, 'POST', '/users/friend-request/reject', { userId: a.user.id }),
      ]);
      expect([accepted.status, rejected.status].sort()).toEqual([200, 404]);
      const friends = await friendIds(b);
      expect(friends).toEqual(accepted.status === 200 ? [a.user.id] : []);
      expect(await requestIds(b)).toEqual([]);
    }
  });

  it('cancel during accept: friends, or no request left, never both', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await signUp(server), await signUp(server)];
      await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
      const [cancelled, accepted] = await Promise.all([
        req(a, 'DELETE', `/users/friend-request/${b.user.id}`),
        req(b, 'POST', '/users/friend-request/accept', { userId: a.user.id }),
      ]);
      expect([cancelled.status, accepted.status].sort()).toEqual([200, 404]);
      expect(await friendIds(a)).toEqual(accepted.status === 200 ? [b.user.id] : []);
      expect(await sentIds(a)).toEqual([]);
      expect(await requestIds(b)).toEqual([]);
    }
  });

  it('unfriend during accept: friends or not, never half', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await signUp(server), await signUp(server)];
      await req(a, 'POST', '/users/friend-request', { userId: b.user.id });
      await Promise.all([
        req(b, 'POST', '/users/friend-request/accept', { userId: a.user.id }),
        req(a, 'DELETE', `/users/friend/${b.user.id}`),
      ]);
      const [fa, fb] = [await friendIds(a), await friendIds(b)];
      expect(fa.length).toBe(fb.length);
      const rows = await server.services.db('friendships').whereIn('user_id', [a.user.id, b.user.id]);
      expect(rows.length === 0 || rows.length === 2).toBe(true);
    }
  });
});

describe('POST /users/search', () => {
  it('matches username and display name without regard to case, never yourself, with the relationship', async () => {
    const tag = uniqueName('srch').slice(-10);
    const me = await signUp(server, { username: `me_${tag}` });
    const byName = await signUp(server, { username: `Zed_${tag}` });
    const byDisplay = await signUp(server, { displayName: `Zoë ${tag.toUpperCase()}` });
    const sent = await signUp(server, { username: `sent_${tag}` });
    const received = await signUp(server, { username: `recv_${tag}` });
    const friend = await signUp(server, { username: `frnd_${tag}` });
    await req(me, 'POST', '/users/friend-request', { userId: sent.user.id });
    await req(received, 'POST', '/users/friend-request', { userId: me.user.id });
    await req(me, 'POST', '/users/friend-request', { userId: friend.user.id });
    await req(friend, 'POST', '/users/friend-request/accept', { userId: me.user.id });

    const res = await req(me, 'POST', '/users/search', { searchTerm: tag.toUpperCase() });
    expect(res.status).toBe(200);
    const byId = new Map(
      res.body.users.map((u: { id: string; relationship: string }) => [u.id, u.relationship]),
    );
    expect(byId.has(me.user.id)).toBe(false);
    expect(byId.get(byName.user.id)).toBe('none');
    expect(byId.get(byDisplay.user.id)).toBe('none');
    expect(byId.get(sent.user.id)).toBe('request_sent');
    expect(byId.get(received.user.id)).toBe('request_received');
    expect(byId.get(friend.user.id)).toBe('friend');
    expect(res.body.users.every((u: { email?: string }) => u.email === undefined)).toBe(true);
  });

  it('matches %, _ and \\ literally', async () => {
    const tag = uniqueName('lit').slice(-8);
    const me = await signUp(server);
    const percent = await signUp(server, { displayName: `100% ${tag}` });
    const underscore = await signUp(server, { username: `a_b${tag}` });
    await signUp(server, { username: `axb${tag}` });
    const backslash = await signUp(server, { displayName: `back\\slash ${tag}` });
    const search = async (term: string) =>
      (await req(me, 'POST', '/users/search', { searchTerm: term })).body.users.map(
        (u: { id: string }) => u.id,
      );
    expect(await search(`0% ${tag}`)).toEqual([percent.user.id]);
    expect(await search(`a_b${tag}`)).toEqual([underscore.user.id]);
    expect(await search(`k\\s`)).toContain(backslash.user.id);
    expect(await search('%%')).toEqual([]);
  });

  it('returns at most 20 results, exact and prefix matches first', async () => {
    const tag = uniqueName('many').slice(-9);
    const me = await signUp(server);
    const exact = await signUp(server, { username: `${tag}` });
    for (let i = 0; i < 22; i++) await signUp(server, { username: `x${i}_${tag}` });
    const res = await req(me, 'POST', '/users/search', { searchTerm: tag });
    expect(res.body.users).toHaveLength(20);
    expect(res.body.users[0].id).toBe(exact.user.id);
  });

  it.each([[{ searchTerm: 'a' }], [{ searchTerm: ' a ' }], [{}], [{ searchTerm: 5 }]])(
    'refuses %j with 400',
    async (body) => {
      const me = await signUp(server);
      const res = await req(me, 'POST', '/users/search', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION', field: 'searchTerm' });
    },
  );
});
