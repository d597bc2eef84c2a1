import { RedisProcess } from '@voice/bus/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChildApi } from '../testing/ChildApi.ts';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, type TestServer } from '../testing/TestServer.ts';
import { TwoNodes } from '../testing/TwoNodes.ts';

// Two API processes on a Redis of the test's own, which the test pauses and restarts; the
// shared Redis is never touched. PostgreSQL is the shared one (each run has its own users).
const _DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

type Account = Awaited<ReturnType<typeof signUp>>;
interface Timed {
  status: number;
  ms: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers of every shape
  body: any;
}

/** One request that gives up after 10 s (the outage lasts longer), with its duration. */
async function timed(baseUrl: string, method: string, route: string, token?: string, body?: unknown) {
  const started = performance.now();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    const res = await fetch(`${baseUrl}/api${route}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return { status: res.status, ms: performance.now() - started, body: text ? JSON.parse(text) : null };
  } catch {
    return { status: 0, ms: performance.now() - started, body: null } satisfies Timed;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function befriend(server: TestServer, x: Account, y: Account) {
  await server.request('POST', '/users/friend-request', { token: x.token, body: { userId: y.user.id } });
  const res = await server.request('POST', '/users/friend-request/accept', {
    token: y.token,
    body: { userId: x.user.id },
  });
  if (res.status !== 200) throw new Error(`befriend failed: ${res.status}`);
}

/** `viewer`'s friends as `node` answers, by id. */
async function friendsOf(node: { baseUrl: string }, viewer: Account) {
  const res = await timed(node.baseUrl, 'GET', '/users/friends', viewer.token);
  const byId = new Map<string, { is_online: boolean | null }>();
  for (const f of (res.body?.friends ?? []) as { id: string; is_online: boolean | null }[]) byId.set(f.id, f);
  return { ...res, byId };
}

/** Polls until `check` holds; returns the ms it took, or throws after `timeoutMs`. */
async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('two API processes when their Redis fails', () => {
  let redis: RedisProcess;
  let nodes: TwoNodes;
  let node1: TestServer;
  let node2: ChildApi;
  const open: SocketClient[] = [];
  const connect = async (node: { baseUrl: string }, who: Account) => {
    const client = await SocketClient.connect(node.baseUrl, who.token);
    open.push(client);
    return client;
  };

  beforeAll(async () => {
    redis = await RedisProcess.start();
    nodes = await TwoNodes.start({ redisUrl: redis.url, env: { PRESENCE_DISCONNECT_WAIT_MS: '200' } });
    ({ node1, node2 } = nodes);
  }, 60_000);
  afterEach(() => {
    redis.resume();
    for (const client of open.splice(0)) client.close();
  });
  afterAll(async () => {
    await nodes?.stop();
    await redis?.stop();
  });

  it('keeps answering through a 30 s Redis hang, and presence is right again after', {
    timeout: 120_000,
  }, async () => {
    const [a, b, c, d] = [await signUp(node1), await signUp(node1), await signUp(node1), await signUp(node1)];
    for (const friend of [b, c, d]) await befriend(node1, a, friend);
    const watcher = await connect(node1, a);
    const stays = await connect(node2, b);
    const leaves = await connect(node2, c);
    for (const who of [b, c]) await watcher.waitFor('friend-online', (e) => e.userId === who.user.id);
    const meBefore: number[] = [];
    for (let i = 0; i < 10; i++) meBefore.push((await timed(node1.baseUrl, 'GET', '/auth/me', a.token)).ms);

    redis.pause();
    const pausedAt = Date.now();
    const samples: Record<string, Timed[]> = { friends: [], login: [], me: [] };
    // Sockets open and close during the outage: the handshake must not wait for Redis.
    const arrives = await connect(node2, d);
    leaves.close();
    while (Date.now() - pausedAt < 30_000) {
      for (const [node, viewer] of [
        [node1, a],
        [node2, b],
      ] as const) {
        samples.friends?.push(await timed(node.baseUrl, 'GET', '/users/friends', viewer.token));
        samples.me?.push(await timed(node.baseUrl, 'GET', '/auth/me', viewer.token));
        samples.login?.push(
          await timed(node.baseUrl, 'POST', '/auth/login', undefined, {
            username: viewer.username,
            password: viewer.password,
          }),
        );
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const friendsDuring = samples.friends ?? [];
    // Every presence read answers, and says it does not know.
    for (const res of friendsDuring) {
      expect(res.status).toBe(200);
      expect(res.ms).toBeLessThan(3000);
    }
    const lastFriends = friendsDuring.at(-1)?.body.friends as { id: string; is_online: unknown }[];
    expect(lastFriends.map((f) => f.is_online)).toEqual(lastFriends.map(() => null));
    // Once the hang is noticed, nothing waits for Redis: the median is that of a normal request.
    expect(median(friendsDuring.map((r) => r.ms))).toBeLessThan(250);
    const meDuring = (samples.me ?? []).map((r) => r.ms);
    expect(Math.max(...meDuring)).toBeLessThan(3000);
    expect(median(meDuring)).toBeLessThan(Math.max(100, median(meBefore) * 5));
    for (const res of samples.login ?? []) {
      expect(res.status).toBe(200);
      expect(res.ms).toBeLessThan(3000);
    }

    redis.resume();
    const resumedAt = Date.now();
    // b stayed connected throughout, d arrived and c left during the outage.
    await until(
      async () => {
        const { byId } = await friendsOf(node1, a);
        return (
          byId.get(b.user.id)?.is_online === true &&
          byId.get(c.user.id)?.is_online === false &&
          byId.get(d.user.id)?.is_online === true
        );
      },
      10_000,
      'presence right again after the hang',
    );
    await watcher.waitFor('friend-online', (e) => e.userId === d.user.id, {
      timeoutMs: 10_000 - (Date.now() - resumedAt),
    });
    await watcher.waitFor('friend-offline', (e) => e.userId === c.user.id, { timeoutMs: 1000 });
    // Heartbeats that expired while Redis stood still do not make a live node look dead.
    expect(await watcher.stillNo('friend-offline', (e) => e.userId === b.user.id, 6000)).toBe(true);
    expect(stays.closed).toBe(false);
    expect(arrives.closed).toBe(false);
  });

  it('a Redis that restarts empty has presence again within 10 s', { timeout: 60_000 }, async () => {
    const [a, b, c] = [await signUp(node1), await signUp(node1), await signUp(node1)];
    await befriend(node1, a, b);
    await befriend(node1, a, c);
    const watcher = await connect(node1, a);
    await connect(node2, b);
    await watcher.waitFor('friend-online', (e) => e.userId === b.user.id);
    const since = watcher.received.length;

    await redis.restartEmpty();
    const restartedAt = Date.now();
    // A friend coming online on node 2 (while the nodes may still be reconnecting) reaches node 1.
    await connect(node2, c);
    // A person still connected on node 2 is online again for node 1.
    await until(
      async () => (await friendsOf(node1, a)).byId.get(b.user.id)?.is_online === true,
      10_000,
      'b online again',
    );
    await watcher.waitFor('friend-online', (e) => e.userId === c.user.id, {
      since,
      timeoutMs: Math.max(0, 10_000 - (Date.now() - restartedAt)),
    });
    expect((await friendsOf(node1, a)).byId.get(c.user.id)?.is_online).toBe(true);
  });
});
