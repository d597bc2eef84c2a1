/**
 * What one person's sockets may cost (issue 7 items 4 and 5): at most SOCKETS_PER_USER_MAX
 * of them (the oldest closes), one request budget for all of them, none outliving its
 * session or its account.
 */
import { SOCKET_REQUEST_BUDGET, SOCKETS_PER_USER_MAX } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Sessions } from '../auth/Sessions.ts';
import { RawSocket } from '../testing/RawSocket.ts';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, signUpFriends, TestServer } from '../testing/TestServer.ts';

let server: TestServer;
const open: Array<{ close(): void }> = [];
beforeAll(async () => {
  server = await TestServer.start();
});
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});
afterAll(() => server?.close());

async function connect(token: string) {
  const client = await SocketClient.connect(server.baseUrl, token);
  open.push(client);
  return client;
}

/** Opens `n` raw sockets for `token`, `batch` handshakes at a time. */
async function openMany(token: string, n: number, batch = 25): Promise<RawSocket[]> {
  const sockets: RawSocket[] = [];
  for (let i = 0; i < n; i += batch) {
    const opened = await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, () => RawSocket.connect(server.baseUrl, token)),
    );
    sockets.push(...opened);
    open.push(...opened);
  }
  return sockets;
}

/** Waits until `sockets` settle: at most `max` of them still open, or the time is up. */
async function settle(sockets: RawSocket[], max: number, timeoutMs = 10_000): Promise<RawSocket[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = sockets.filter((s) => s.open);
    if (alive.length <= max || Date.now() > deadline) return alive;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('sockets per person', () => {
  it(`keeps at most ${SOCKETS_PER_USER_MAX} of 500, closing the oldest with a reason`, {
    timeout: 120_000,
  }, async () => {
    const a = await signUp(server);
    const first = await connect(a.token);
    const sockets = await openMany(a.token, 499);
    const alive = await settle(sockets, SOCKETS_PER_USER_MAX);
    expect(alive.length).toBe(SOCKETS_PER_USER_MAX);
    // The newest stay: all from the last batch (within a batch, handshakes finish in any order).
    const lastBatch = new Set(sockets.slice(-25));
    expect(alive.every((s) => lastBatch.has(s))).toBe(true);
    await first.waitClosed();
    expect(first.received.find((r) => r.method === 'socket-closing')?.data).toEqual({
      reason: 'too-many-sockets',
    });
    expect(server.server.socket.connectionCount).toBeLessThanOrEqual(SOCKETS_PER_USER_MAX);
    // The survivors work.
    await expect(alive[0]?.request('no-such-method')).resolves.toMatchObject({ errorCode: 404 });
  });

  it('shares one request budget across a person’s sockets; others are not held up', {
    timeout: 120_000,
  }, async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const sockets = await openMany(a.token, 200);
    await settle(sockets, SOCKETS_PER_USER_MAX);
    const started = performance.now();
    // Every socket, open or closed by now, tries 20 requests at once.
    const attempts = sockets.flatMap((s) =>
      s.open ? Array.from({ length: 20 }, () => s.request('no-such-method', {}, 10_000)) : [],
    );
    const [replies, me] = await Promise.all([
      Promise.all(attempts),
      server.request('GET', '/auth/me', { token: b.token }),
    ]);
    const seconds = (performance.now() - started) / 1000;
    const served = replies.filter((r) => r.errorCode === 404).length;
    const limited = replies.filter((r) => r.errorCode === 429).length;
    expect(served + limited).toBe(replies.length);
    // One budget: its burst plus what refilled meanwhile, not a burst per socket.
    const { burst, ratePerSecond } = SOCKET_REQUEST_BUDGET;
    expect(served).toBeLessThanOrEqual(burst + Math.ceil(ratePerSecond * seconds) + 1);
    expect(limited).toBeGreaterThan(0);
    expect(me.status).toBe(200);
  });

  it('keeps the spent budget when the person closes a socket and opens another', async () => {
    const a = await signUp(server);
    const spend = await RawSocket.connect(server.baseUrl, a.token);
    open.push(spend);
    await Promise.all(Array.from({ length: 40 }, () => spend.request('no-such-method')));
    const spentAt = performance.now();
    spend.close();
    await spend.waitClosed();
    const again = await RawSocket.connect(server.baseUrl, a.token);
    open.push(again);
    const replies = await Promise.all(Array.from({ length: 20 }, () => again.request('no-such-method')));
    const seconds = (performance.now() - spentAt) / 1000;
    const served = replies.filter((r) => r.errorCode === 404).length;
    // A fresh budget would serve all 20; a kept one only what refilled since it was spent.
    expect(served).toBeLessThanOrEqual(Math.ceil(SOCKET_REQUEST_BUDGET.ratePerSecond * seconds) + 1);
  });
});

describe('sockets and the session they belong to', () => {
  it('closes a socket when its session expires, saying why', async () => {
    const a = await signUp(server);
    // A session that lasts 2 s, signed like any other.
    const shortLived = new Sessions(server.services.db, server.services.config.jwtSecret, 2);
    const token = await shortLived.issue(a.user.id);
    const client = await connect(token);
    const other = await connect(a.token);
    await client.waitClosed(6000);
    expect(client.received.find((r) => r.method === 'socket-closing')?.data).toEqual({
      reason: 'session-expired',
    });
    expect(other.closed).toBe(false);
  });

  it('refuses to remove an account without the right password, and keeps its sockets', async () => {
    const a = await signUp(server);
    const client = await connect(a.token);
    const wrong = await server.request('DELETE', '/users/me', {
      token: a.token,
      body: { password: 'wrong-one' },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('WRONG_PASSWORD');
    for (const body of [undefined, {}, { password: '' }, { password: 5 }, { password: 'x'.repeat(200) }]) {
      const res = await server.request('DELETE', '/users/me', { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION');
    }
    expect((await server.request('DELETE', '/users/me', { body: { password: a.password } })).status).toBe(
      401,
    );
    expect(client.closed).toBe(false);
    expect((await server.request('GET', '/auth/me', { token: a.token })).status).toBe(200);
  });

  it('removes the account: every session and socket ends, and the people who knew them are told', async () => {
    const [a, friend] = await signUpFriends(server);
    const asked = await signUp(server);
    const asking = await signUp(server);
    await server.request('POST', '/users/friend-request', {
      token: a.token,
      body: { userId: asked.user.id },
    });
    await server.request('POST', '/users/friend-request', {
      token: asking.token,
      body: { userId: a.user.id },
    });
    const second = await server.request('POST', '/auth/login', {
      body: { username: a.username, password: a.password },
    });
    const tabs = [await connect(a.token), await connect(a.token), await connect(second.body.token)];
    const [friendTab, askedTab, askingTab] = [
      await connect(friend.token),
      await connect(asked.token),
      await connect(asking.token),
    ];

    const res = await server.request('DELETE', '/users/me', {
      token: a.token,
      body: { password: a.password },
    });
    expect(res.status).toBe(204);
    for (const tab of tabs) await tab.waitClosed();
    await friendTab.waitFor('friend-removed', (d) => d.userId === a.user.id);
    await askedTab.waitFor('friend-request-cancelled', (d) => d.userId === a.user.id);
    await askingTab.waitFor('friend-request-rejected', (d) => d.userId === a.user.id);

    for (const token of [a.token, second.body.token]) {
      expect((await server.request('GET', '/auth/me', { token })).status).toBe(401);
      await expect(SocketClient.connect(server.baseUrl, token)).rejects.toThrow();
    }
    const login = await server.request('POST', '/auth/login', {
      body: { username: a.username, password: a.password },
    });
    expect(login.status).toBe(401);
    expect((await server.request('GET', '/users/friends', { token: friend.token })).body.friends).toEqual([]);
    expect((await server.request('GET', `/users/${a.user.id}`, { token: friend.token })).status).toBe(404);
    // The name is free again.
    expect(
      (await server.request('POST', '/auth/check-username', { body: { username: a.username } })).body,
    ).toEqual({
      available: true,
    });
  });

  it('lets a session try the password only a few times', async () => {
    // The real limits, not the test suite's widened ones.
    const strict = await TestServer.start({ RATE_LIMIT_FACTOR: '1' });
    try {
      const a = await signUp(strict);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await strict.request('DELETE', '/users/me', {
          token: a.token,
          body: { password: `guess-${i}` },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([403, 403, 403, 403, 403, 429]);
      const right = await strict.request('DELETE', '/users/me', {
        token: a.token,
        body: { password: a.password },
      });
      expect(right.status).toBe(429);
    } finally {
      await strict.close();
    }
  });
});
