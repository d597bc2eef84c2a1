/**
 * The session cache across two API processes on one Redis: whatever ends a session or
 * changes a person on one process is refused or shown on the other at once (within the
 * bus's delivery), although both answer verified sessions from memory.
 */
import { RedisProcess } from '@voice/bus/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildApi } from '../testing/ChildApi.ts';
import { signUp, type TestServer } from '../testing/TestServer.ts';
import { TwoNodes } from '../testing/TwoNodes.ts';

type Node = TestServer | ChildApi;

// What "at once" allows: one trip over the bus, and a loaded machine.
const BUS_DELIVERY = { timeout: 3000, interval: 20 };

async function me(node: Node, token: string) {
  const res = await fetch(`${node.baseUrl}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as { user?: Record<string, unknown> } };
}
const meStatus = async (node: Node, token: string) => (await me(node, token)).status;

async function send(node: Node, method: string, route: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${node.baseUrl}/api${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function login(node: Node, username: string, password: string): Promise<string> {
  const res = await send(node, 'POST', '/auth/login', null, { username, password });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

/** Verified on both nodes, so that each answers it from memory from then on. */
async function warm(nodes: Node[], tokens: string[]) {
  for (const node of nodes) for (const token of tokens) expect(await meStatus(node, token)).toBe(200);
}

describe('sessions across two API processes', () => {
  let nodes: TwoNodes;
  let node1: TestServer;
  let node2: ChildApi;

  beforeAll(async () => {
    nodes = await TwoNodes.start();
    ({ node1, node2 } = nodes);
  });
  afterAll(async () => {
    await nodes?.stop();
  });

  it('answers a session it verified from memory, on either node', async () => {
    const a = await signUp(node1);
    await warm([node1, node2], [a.token]);
    // Removed behind the cache's back (no process is told): still answered from memory,
    // which is why everything that ends a session says so on the bus.
    await node1.services.db('sessions').where({ user_id: a.user.id }).delete();
    expect(await meStatus(node1, a.token)).toBe(200);
    expect(await meStatus(node2, a.token)).toBe(200);
    // Told, both refuse it.
    await node1.services.sessions.userChanged(a.user.id);
    expect(await meStatus(node1, a.token)).toBe(401);
    await expect.poll(() => meStatus(node2, a.token), BUS_DELIVERY).toBe(401);
  });

  it.each([
    ['node 1', 'node 2'],
    ['node 2', 'node 1'],
  ])('logout on %s: %s refuses the token at once, other sessions stay', async (from) => {
    const [here, there] = from === 'node 1' ? [node1, node2] : [node2, node1];
    const a = await signUp(node1);
    const other = await login(there, a.username, a.password);
    await warm([node1, node2], [a.token, other]);

    expect((await send(here, 'POST', '/auth/logout', a.token)).status).toBe(204);
    expect(await meStatus(here, a.token)).toBe(401);
    await expect.poll(() => meStatus(there, a.token), BUS_DELIVERY).toBe(401);
    expect(await meStatus(here, other)).toBe(200);
    expect(await meStatus(there, other)).toBe(200);
  });

  it('a password reset on node 2 ends every session on node 1 at once', async () => {
    const a = await signUp(node1);
    const second = await login(node1, a.username, a.password);
    await warm([node1, node2], [a.token, second]);

    const since = node1.smtp.messages.length;
    expect((await send(node1, 'POST', '/auth/forgot-password', null, { email: a.email })).status).toBe(200);
    const mail = await node1.smtp.waitFor(a.email, { since });
    const resetToken = mail.text?.match(/reset-password\?token=([\w-]+)/)?.[1];
    expect(resetToken).toBeTruthy();
    const reset = await send(node2, 'POST', '/auth/reset-password', null, {
      token: resetToken,
      password: 'brand-new-1',
      confirmPassword: 'brand-new-1',
    });
    expect(reset.status).toBe(200);

    for (const token of [a.token, second]) {
      expect(await meStatus(node2, token)).toBe(401);
      await expect.poll(() => meStatus(node1, token), BUS_DELIVERY).toBe(401);
    }
    const fresh = await login(node1, a.username, 'brand-new-1');
    expect(await meStatus(node2, fresh)).toBe(200);
  });

  it("a removed account's sessions are refused on the other node at once", async () => {
    const a = await signUp(node1);
    await warm([node1, node2], [a.token]);
    const removed = await send(node2, 'DELETE', '/users/me', a.token, { password: a.password });
    expect(removed.status).toBe(204);
    expect(await meStatus(node2, a.token)).toBe(401);
    await expect.poll(() => meStatus(node1, a.token), BUS_DELIVERY).toBe(401);
  });

  it("a profile change on node 2 shows in node 1's /me at once, for each session", async () => {
    const a = await signUp(node1, { language: 'en' });
    const second = await login(node1, a.username, a.password);
    await warm([node1, node2], [a.token, second]);
    expect((await me(node1, a.token)).body.user).toMatchObject({ display_name: null, language: 'en' });

    const changes = { display_name: 'Changed Elsewhere', language: 'ja', theme: 'light', avatar: 'fox' };
    expect((await send(node2, 'PUT', '/users/profile', a.token, changes)).status).toBe(200);
    const expected = {
      display_name: 'Changed Elsewhere',
      language: 'ja',
      theme: 'light',
      avatar_url: expect.stringContaining('fox'),
      onboarding_completed: false,
    };
    for (const token of [a.token, second]) {
      await expect.poll(async () => (await me(node1, token)).body.user, BUS_DELIVERY).toMatchObject(expected);
    }

    expect((await send(node1, 'PUT', '/users/profile', second, { completeOnboarding: true })).status).toBe(
      200,
    );
    await expect
      .poll(async () => (await me(node2, a.token)).body.user?.onboarding_completed, BUS_DELIVERY)
      .toBe(true);
  });
});

describe('sessions across two API processes while Redis hangs', () => {
  // A Redis of this test's own: only it is paused.
  let redis: RedisProcess;
  let nodes: TwoNodes;
  let node1: TestServer;
  let node2: ChildApi;

  beforeAll(async () => {
    redis = await RedisProcess.start();
    nodes = await TwoNodes.start({ redisUrl: redis.url });
    ({ node1, node2 } = nodes);
  });
  afterAll(async () => {
    redis?.resume();
    await nodes?.stop();
    await redis?.stop();
  });

  it('a logout the other node could not hear is refused there once it notices Redis hangs', {
    timeout: 60_000,
  }, async () => {
    const a = await signUp(node1);
    const other = await login(node1, a.username, a.password);
    await warm([node1, node2], [a.token, other]);

    redis.pause();
    try {
      // The logout's bus message reaches node 1 only.
      expect((await send(node1, 'POST', '/auth/logout', a.token)).status).toBe(204);
      expect(await meStatus(node1, a.token)).toBe(401);
      // Node 2 stops trusting its memory as soon as a Redis call of its own goes unanswered
      // (its presence heartbeat makes one every 5 s), and asks the database instead.
      await expect.poll(() => meStatus(node2, a.token), { timeout: 15_000, interval: 100 }).toBe(401);
      expect(await meStatus(node2, other)).toBe(200);
    } finally {
      redis.resume();
    }
    // Back, both empty their caches: what they missed cannot come back.
    expect(await meStatus(node2, a.token)).toBe(401);
    expect(await meStatus(node1, a.token)).toBe(401);
    expect(await meStatus(node2, other)).toBe(200);
  });
});
