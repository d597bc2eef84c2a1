import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChildApi } from '../testing/ChildApi.ts';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, signUpFriends, type TestServer } from '../testing/TestServer.ts';
import { TwoNodes } from '../testing/TwoNodes.ts';

// Several API processes behave as one service only through a shared PostgreSQL and Redis: this
// test needs both, so it uses the local ones unless told otherwise, and fails when they are not there.

describe('two API processes on one Redis', () => {
  let nodes: TwoNodes;
  let node1: TestServer;
  // A separate OS process, as a second API node would be.
  let node2: ChildApi;
  const open: SocketClient[] = [];
  const connect = async (node: { baseUrl: string }, token: string) => {
    const client = await SocketClient.connect(node.baseUrl, token);
    open.push(client);
    return client;
  };

  beforeAll(async () => {
    nodes = await TwoNodes.start();
    ({ node1, node2 } = nodes);
  });
  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });
  afterAll(async () => {
    await nodes?.stop();
  });

  it('a person on node 1 and a friend on node 2 see each other come and go', async () => {
    const [a, b] = await signUpFriends(node1);
    const onNode1 = await connect(node1, a.token);
    const onNode2 = await connect(node2, b.token);
    await onNode1.waitFor('friend-online', (d) => d.userId === b.user.id);
    // Presence is shared: node 2 answers for a person connected to node 1.
    const seenFromNode2 = await fetch(`${node2.baseUrl}/api/users/friends`, {
      headers: { authorization: `Bearer ${b.token}` },
    });
    const { friends } = (await seenFromNode2.json()) as { friends: unknown[] };
    expect(friends[0]).toMatchObject({ id: a.user.id, is_online: true });

    onNode1.close();
    const offline = await onNode2.waitFor('friend-offline', (d) => d.userId === a.user.id);
    expect(typeof offline.data.last_seen).toBe('string');
  });

  it('delivers friend-request-received across nodes', async () => {
    const a = await signUp(node1);
    const b = await signUp(node1);
    const onNode2 = await connect(node2, b.token);
    await node1.request('POST', '/users/friend-request', { token: a.token, body: { userId: b.user.id } });
    const event = await onNode2.waitFor('friend-request-received');
    expect(event.data.from).toMatchObject({ id: a.user.id });
  });

  it('takes the people of a crashed node offline within 30 s', { timeout: 60_000 }, async () => {
    const child = await nodes.startAnotherNode();
    try {
      const [a, b] = await signUpFriends(node1);
      const watcher = await connect(node1, a.token);
      await connect(child, b.token);
      await watcher.waitFor('friend-online', (d) => d.userId === b.user.id);
      const crashedAt = Date.now();
      await child.crash();
      await watcher.waitFor('friend-offline', (d) => d.userId === b.user.id, { timeoutMs: 30_000 });
      expect(Date.now() - crashedAt).toBeLessThan(30_000);
      const friends = await node1.request('GET', '/users/friends', { token: a.token });
      expect(friends.body.friends[0]).toMatchObject({ id: b.user.id, is_online: false });
    } finally {
      await child.stop();
    }
  });
});
