import { randomBytes } from 'node:crypto';
import { SOCKET_TICKET } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handshake } from '../testing/handshake.ts';
import { SocketClient } from '../testing/SocketClient.ts';
import { socketTicket } from '../testing/socketTicket.ts';
import { signUp, signUpFriends, TestServer } from '../testing/TestServer.ts';

let server: TestServer;
const open: SocketClient[] = [];
beforeAll(async () => {
  server = await TestServer.start();
});
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});
afterAll(() => server?.close());

async function connect(token: string, origin?: string) {
  const client = await SocketClient.connect(server.baseUrl, token, { origin });
  open.push(client);
  return client;
}

/** The HTTP status a raw WebSocket handshake gets. */
async function handshakeStatus(path: string, origin?: string): Promise<number> {
  return (await handshake(`${server.baseUrl.replace('http', 'ws')}${path}`, origin)).status;
}

describe('app socket handshake', () => {
  it('accepts a ticket once: its second use is refused with 401', async () => {
    const a = await signUp(server);
    const ticket = await socketTicket(server.baseUrl, a.token);
    expect(await handshakeStatus(`/ws?ticket=${ticket}`, 'http://app.test')).toBe(101);
    expect(await handshakeStatus(`/ws?ticket=${ticket}`, 'http://app.test')).toBe(401);
    // Without an Origin (a load test), too.
    const another = await socketTicket(server.baseUrl, a.token);
    expect(await handshakeStatus(`/ws?ticket=${another}`)).toBe(101);
    expect(await handshakeStatus(`/ws?ticket=${another}`)).toBe(401);
  });

  it('refuses the session token itself in the URL with 401: only a ticket opens the socket', async () => {
    const a = await signUp(server);
    expect(await handshakeStatus(`/ws?token=${a.token}`)).toBe(401);
    expect(await handshakeStatus(`/ws?ticket=${encodeURIComponent(a.token)}`)).toBe(401);
  });

  it('refuses a missing, unknown, malformed or oversized ticket with 401, and keeps serving', async () => {
    const a = await signUp(server);
    const good = await socketTicket(server.baseUrl, a.token);
    const refused = [
      '/ws',
      '/ws?ticket=',
      `/ws?ticket=${randomBytes(SOCKET_TICKET.bytes).toString('base64url')}`,
      `/ws?ticket=${good.slice(0, -1)}`,
      `/ws?ticket=${good}A`,
      `/ws?ticket=${encodeURIComponent(`${good.slice(0, -1)}=`)}`,
      `/ws?ticket=${'x'.repeat(6000)}`,
      `/ws?ticket=${encodeURIComponent('{"userId":"x"}')}`,
      `/ws?ticket[]=${good}`,
    ];
    for (const path of refused) expect(await handshakeStatus(path), path.slice(0, 80)).toBe(401);
    // None of that spent the real one, and the process still serves.
    expect(await handshakeStatus(`/ws?ticket=${good}`)).toBe(101);
    expect((await server.request('GET', '/health')).status).toBe(200);
  });

  it('refuses a ticket whose session logged out before it was used', async () => {
    const a = await signUp(server);
    const ticket = await socketTicket(server.baseUrl, a.token);
    await server.request('POST', '/auth/logout', { token: a.token });
    expect(await handshakeStatus(`/ws?ticket=${ticket}`)).toBe(401);
  });

  it('refuses a foreign origin with 403 and another path with 404, leaving the ticket unspent', async () => {
    const a = await signUp(server);
    const ticket = await socketTicket(server.baseUrl, a.token);
    expect(await handshakeStatus(`/ws?ticket=${ticket}`, 'http://evil.test')).toBe(403);
    expect(await handshakeStatus(`/ws?ticket=${ticket}`, 'null')).toBe(403);
    expect(await handshakeStatus(`/other?ticket=${ticket}`)).toBe(404);
    expect(await handshakeStatus(`/ws?ticket=${ticket}`, 'http://app.test')).toBe(101);
  });
});

describe('presence', () => {
  it('tells friends when someone comes online and, after the grace period, goes offline with last_seen', async () => {
    const [a, b] = await signUpFriends(server);
    const watcher = await connect(a.token);
    const tab = await connect(b.token);
    await watcher.waitFor('friend-online', (d) => d.userId === b.user.id);
    const friends = await server.request('GET', '/users/friends', { token: a.token });
    expect(friends.body.friends[0]).toMatchObject({ id: b.user.id, is_online: true, isInCall: false });

    const before = Date.now();
    tab.close();
    const offline = await watcher.waitFor('friend-offline', (d) => d.userId === b.user.id);
    expect(new Date(offline.data.last_seen as string).getTime()).toBeGreaterThanOrEqual(before - 1000);
    const after = await server.request('GET', '/users/friends', { token: a.token });
    expect(after.body.friends[0]).toMatchObject({ is_online: false, last_seen: offline.data.last_seen });
  });

  it('stays online while another tab is open, and across a quick reload', async () => {
    const [a, b] = await signUpFriends(server);
    const watcher = await connect(a.token);
    const tab1 = await connect(b.token);
    const tab2 = await connect(b.token);
    await watcher.waitFor('friend-online', (d) => d.userId === b.user.id);
    tab1.close();
    tab2.close();
    // The reload: back before the grace period (200 ms in tests) ends.
    await connect(b.token);
    expect(await watcher.stillNo('friend-offline', (d) => d.userId === b.user.id, 600)).toBe(true);
    expect(watcher.received.filter((r) => r.method === 'friend-online')).toHaveLength(1);
  });

  it('does not tell strangers', async () => {
    const a = await signUp(server);
    const stranger = await signUp(server);
    const watcher = await connect(stranger.token);
    await connect(a.token);
    expect(await watcher.stillNo('friend-online', (d) => d.userId === a.user.id, 300)).toBe(true);
  });
});

describe('friend events', () => {
  it('delivers friend-request-received, and friend-request-accepted to both sides', async () => {
    const a = await signUp(server, { displayName: 'Ana' });
    const b = await signUp(server);
    const [sa, sb] = [await connect(a.token), await connect(b.token)];
    await server.request('POST', '/users/friend-request', { token: a.token, body: { userId: b.user.id } });
    const received = await sb.waitFor('friend-request-received');
    expect(received.data.from).toEqual({
      id: a.user.id,
      username: a.username,
      display_name: 'Ana',
      avatar_url: null,
    });

    // Accepting over the socket itself.
    expect(await sb.request('accept-friend-request', { userId: a.user.id })).toEqual({ ok: true });
    const toA = await sa.waitFor('friend-request-accepted');
    const toB = await sb.waitFor('friend-request-accepted');
    expect(toA.data.user).toMatchObject({ id: b.user.id, is_online: true });
    expect(toB.data.user).toMatchObject({ id: a.user.id, is_online: true });
  });

  it('delivers friend-removed to both sides, on every tab', async () => {
    const [a, b] = await signUpFriends(server);
    const [sa, sb1, sb2] = [await connect(a.token), await connect(b.token), await connect(b.token)];
    await server.request('DELETE', `/users/friend/${b.user.id}`, { token: a.token });
    await sb1.waitFor('friend-removed', (d) => d.userId === a.user.id);
    await sb2.waitFor('friend-removed', (d) => d.userId === a.user.id);
    await sa.waitFor('friend-removed', (d) => d.userId === b.user.id);
  });

  it('answers bad socket requests with an error and keeps the connection', async () => {
    const a = await signUp(server);
    const client = await connect(a.token);
    await expect(client.request('accept-friend-request', { userId: 'nope' })).rejects.toThrow(/VALIDATION/);
    await expect(client.request('accept-friend-request', {})).rejects.toThrow(/VALIDATION/);
    await expect(client.request('no-such-method', {})).rejects.toThrow(/NOT_FOUND/);
    await expect(
      client.request('accept-friend-request', { userId: '00000000-0000-4000-8000-000000000000' }),
    ).rejects.toThrow(/FRIEND_REQUEST_NOT_FOUND/);
    expect(client.closed).toBe(false);
  });

  it('rate-limits socket requests', async () => {
    const a = await signUp(server);
    const client = await connect(a.token);
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, () => client.request('accept-friend-request', { userId: 'x' })),
    );
    // The same stable code as REST, with the HTTP-like status as protoo's error code.
    const limited = results.flatMap((r) =>
      r.status === 'rejected' ? [r.reason as Error & { code?: number }] : [],
    );
    const rateLimited = limited.filter((e) => e.message === 'RATE_LIMITED');
    expect(rateLimited.length).toBeGreaterThan(0);
    expect(rateLimited.every((e) => e.code === 429)).toBe(true);
  });
});

describe('sessions and sockets', () => {
  it('closes the sockets of a session when it logs out, and leaves other sessions open', async () => {
    const a = await signUp(server);
    const other = await server.request('POST', '/auth/login', {
      body: { username: a.username, password: a.password },
    });
    const mine = await connect(a.token);
    const theirs = await connect(other.body.token);
    await server.request('POST', '/auth/logout', { token: a.token });
    await mine.waitClosed();
    expect(theirs.closed).toBe(false);
  });
});

describe('avatar-updated', () => {
  it('reaches friends and the person’s own tabs when the avatar changes', async () => {
    const [a, b] = await signUpFriends(server);
    const [own, friend] = [await connect(a.token), await connect(b.token)];
    const res = await server.request('PUT', '/users/profile', { token: a.token, body: { avatar: 'fox' } });
    expect(res.status).toBe(200);
    for (const client of [own, friend]) {
      const event = await client.waitFor('avatar-updated', (d) => d.userId === a.user.id);
      expect(event.data.avatar_url).toBe(res.body.user.avatar_url);
    }
  });
});

describe('friend-request-rejected', () => {
  it('reaches every tab of the person who rejected, and the sender with the rejecter’s id', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const [sender, tab1, tab2] = [await connect(a.token), await connect(b.token), await connect(b.token)];
    await server.request('POST', '/users/friend-request', { token: a.token, body: { userId: b.user.id } });
    await tab1.waitFor('friend-request-received');
    await server.request('POST', '/users/friend-request/reject', {
      token: b.token,
      body: { userId: a.user.id },
    });
    for (const tab of [tab1, tab2])
      await tab.waitFor('friend-request-rejected', (d) => d.userId === a.user.id);
    // Issue 7 item 17: the sender's search result and Sent list must follow.
    await sender.waitFor('friend-request-rejected', (d) => d.userId === b.user.id);
  });
});

describe('delivery to one tab', () => {
  it("hands an event for one of this process's tabs straight to it, and anything else to the bus", async () => {
    const a = await signUp(server);
    const tab = await connect(a.token);
    const [connectionId] = server.server.socket.connectionIds(a.user.id);
    if (!connectionId) throw new Error('the tab is not registered');
    const publish = vi.spyOn(server.services.bus, 'publish');
    try {
      await server.services.notifier.notifyConnection(a.user.id, connectionId, 'call-accepted', {
        callId: 'c1',
      });
      expect((await tab.waitFor('call-accepted')).data).toEqual({ callId: 'c1' });
      expect(publish).not.toHaveBeenCalled();

      // Another person's id with this tab, or a tab held elsewhere: the bus decides.
      const b = await signUp(server);
      await server.services.notifier.notifyConnection(b.user.id, connectionId, 'call-accepted', {
        callId: 'c2',
      });
      await server.services.notifier.notifyConnection(a.user.id, 'tab-elsewhere', 'call-accepted', {
        callId: 'c3',
      });
      expect(publish).toHaveBeenCalledTimes(2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(tab.received.filter((event) => event.method === 'call-accepted')).toHaveLength(1);
    } finally {
      publish.mockRestore();
    }
  });
});
