import { RedisProcess } from '@voice/bus/testing';
import { SOCKETS_PER_USER_MAX } from '@voice/protocol';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChildApi } from '../testing/ChildApi.ts';
import { handshake } from '../testing/handshake.ts';
import { RawSocket } from '../testing/RawSocket.ts';
import { appSocketUrl, socketTicket } from '../testing/socketTicket.ts';
import { signUp, signUpFriends, type TestServer } from '../testing/TestServer.ts';
import { TwoNodes } from '../testing/TwoNodes.ts';

describe('sockets across two API processes', () => {
  let nodes: TwoNodes;
  let node1: TestServer;
  let node2: ChildApi;
  const open: RawSocket[] = [];
  const connect = async (node: { baseUrl: string }, token: string) => {
    const socket = await RawSocket.connect(node.baseUrl, token);
    open.push(socket);
    return socket;
  };

  beforeAll(async () => {
    nodes = await TwoNodes.start();
    ({ node1, node2 } = nodes);
  });
  afterEach(() => {
    for (const socket of open.splice(0)) socket.close();
  });
  afterAll(async () => {
    await nodes?.stop();
  });

  it(`keeps at most ${SOCKETS_PER_USER_MAX} sockets of one person in the whole service`, async () => {
    const a = await signUp(node1);
    const half = SOCKETS_PER_USER_MAX / 2 + 1;
    const onNode1: RawSocket[] = [];
    for (let i = 0; i < half; i++) onNode1.push(await connect(node1, a.token));
    const onNode2: RawSocket[] = [];
    for (let i = 0; i < half; i++) onNode2.push(await connect(node2, a.token));

    // Two too many: the two oldest, on node 1, are closed by node 2's count.
    await Promise.all(onNode1.slice(0, 2).map((s) => s.waitClosed()));
    for (const closed of onNode1.slice(0, 2)) {
      expect(closed.received).toContainEqual(
        expect.objectContaining({ method: 'socket-closing', data: { reason: 'too-many-sockets' } }),
      );
    }
    await new Promise((r) => setTimeout(r, 300));
    expect([...onNode1, ...onNode2].filter((s) => s.open)).toHaveLength(SOCKETS_PER_USER_MAX);
    expect(onNode2.every((s) => s.open)).toBe(true);
  });

  it('opens a socket on one process with a ticket from the other, once', async () => {
    const a = await signUp(node1);
    const status = async (node: { baseUrl: string }, ticket: string) =>
      (await handshake(appSocketUrl(node.baseUrl, ticket))).status;
    const fromNode1 = await socketTicket(node1.baseUrl, a.token);
    expect(await status(node2, fromNode1)).toBe(101);
    expect(await status(node1, fromNode1)).toBe(401);
    expect(await status(node2, fromNode1)).toBe(401);
    const fromNode2 = await socketTicket(node2.baseUrl, a.token);
    expect(await status(node1, fromNode2)).toBe(101);
    expect(await status(node2, fromNode2)).toBe(401);
  });

  it('closes the sockets of a removed account on every process, and tells friends on either', async () => {
    const [a, friend] = await signUpFriends(node1);
    const tabs = [await connect(node1, a.token), await connect(node2, a.token)];
    const friendTab = await connect(node2, friend.token);

    const res = await node1.request('DELETE', '/users/me', {
      token: a.token,
      body: { password: a.password },
    });
    expect(res.status).toBe(204);
    await Promise.all(tabs.map((tab) => tab.waitClosed()));
    await friendTab.waitFor(
      (m) => m.method === 'friend-removed' && (m.data as { userId: string }).userId === a.user.id,
    );
    expect(friendTab.open).toBe(true);
  });
});

describe('sockets across two API processes, after Redis restarts empty', () => {
  let redis: RedisProcess;
  let nodes: TwoNodes;
  let node1: TestServer;
  let node2: ChildApi;
  const open: RawSocket[] = [];
  const connect = async (node: { baseUrl: string }, token: string) => {
    const socket = await RawSocket.connect(node.baseUrl, token);
    open.push(socket);
    return socket;
  };

  beforeAll(async () => {
    // A Redis of this test's own: only it is restarted.
    redis = await RedisProcess.start();
    nodes = await TwoNodes.start({ redisUrl: redis.url });
    ({ node1, node2 } = nodes);
  });
  afterAll(async () => {
    for (const socket of open.splice(0)) socket.close();
    await nodes?.stop();
    await redis?.stop();
  });

  it('puts its sockets back, so the cap holds across processes again', { timeout: 60_000 }, async () => {
    const a = await signUp(node1);
    const half = SOCKETS_PER_USER_MAX / 2 + 1;
    const onNode1: RawSocket[] = [];
    for (let i = 0; i < half; i++) onNode1.push(await connect(node1, a.token));

    await redis.restartEmpty();
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const key = `${node1.services.config.redisPrefix}sockets:${a.user.id}`;
      const deadline = Date.now() + 10_000;
      while ((await client.zCard(key)) < half && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await client.zCard(key)).toBe(half);
    } finally {
      await client.quit();
    }

    const onNode2: RawSocket[] = [];
    for (let i = 0; i < half; i++) onNode2.push(await connect(node2, a.token));
    // Node 2 may still be reconnecting; when it is back it adds its sockets, and the cap applies.
    await Promise.all(onNode1.slice(0, 2).map((s) => s.waitClosed(15_000)));
    expect([...onNode1, ...onNode2].filter((s) => s.open)).toHaveLength(SOCKETS_PER_USER_MAX);
  });
});
