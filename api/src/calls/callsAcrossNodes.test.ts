import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChildApi } from '../testing/ChildApi.ts';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, signUpFriends, type TestServer } from '../testing/TestServer.ts';
import { TwoNodes } from '../testing/TwoNodes.ts';

describe('calls across two API processes', () => {
  let nodes: TwoNodes;
  let node1: TestServer;
  let node2: ChildApi;
  const open: SocketClient[] = [];
  const connect = async (node: { baseUrl: string }, token: string) => {
    const client = await SocketClient.connect(node.baseUrl, token, { origin: 'http://app.test' });
    open.push(client);
    return client;
  };
  /** Until node 1 sees `userId` online for `token`'s owner: a tab just opened elsewhere is recorded a moment later. */
  const untilOnline = (token: string, userId: string) =>
    expect
      .poll(async () => {
        const res = await node1.request('GET', '/users/friends', { token });
        return res.body.friends.find((f: { id: string }) => f.id === userId)?.is_online;
      })
      .toBe(true);

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

  it('a caller on node 1 and a callee on node 2 complete a call', async () => {
    const [a, b] = await signUpFriends(node1);
    const sa = await connect(node1, a.token);
    const [sb1, sb2] = [await connect(node2, b.token), await connect(node1, b.token)];
    await untilOnline(a.token, b.user.id);

    const { callId } = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    await sa.waitFor('call-initiated', (d) => d.callId === callId);
    await sb1.waitFor('incoming-call', (d) => d.callId === callId);
    await sb2.waitFor('incoming-call', (d) => d.callId === callId);
    // The offer made while ringing reaches B's tabs on both processes.
    await sa.request('webrtc-offer', { callId, sdp: 'offer-sdp' });
    for (const tab of [sb1, sb2])
      expect((await tab.waitFor('webrtc-offer')).data).toEqual({ callId, sdp: 'offer-sdp' });
    // The tab on node 2 answers with its answer; B's tab on node 1 stops ringing.
    await sb1.request('accept-call', { callId, sdp: 'answer-sdp' });
    await sa.waitFor('call-accepted', (d) => d.callId === callId);
    expect((await sa.waitFor('webrtc-answer')).data).toEqual({ callId, sdp: 'answer-sdp' });
    expect((await sb2.waitFor('call-ended')).data).toEqual({ callId, reason: 'answered-elsewhere' });

    // An ICE restart: a new offer and answer between the bound tabs only.
    await sa.request('webrtc-offer', { callId, sdp: 'restart-offer' });
    expect((await sb1.waitFor('webrtc-offer', (d) => d.sdp === 'restart-offer')).data.callId).toBe(callId);
    await sb1.request('webrtc-answer', { callId, sdp: 'restart-answer' });
    await sa.waitFor('webrtc-answer', (d) => d.sdp === 'restart-answer');
    await sb1.request('webrtc-ice-candidate', { callId, candidate: { candidate: 'c', sdpMid: '0' } });
    await sa.waitFor('webrtc-ice-candidate');
    await expect(sb2.request('webrtc-offer', { callId, sdp: 'x' })).rejects.toThrow(/CALL_NOT_FOUND/);
    expect(sb2.received.filter((r) => r.method.startsWith('webrtc-')).map((r) => r.data)).toEqual([
      { callId, sdp: 'offer-sdp' },
    ]);

    // The in-call status is seen by either process.
    const friends = await fetch(`${node2.baseUrl}/api/users/friends`, {
      headers: { authorization: `Bearer ${b.token}` },
    }).then((r) => r.json() as Promise<{ friends: Array<{ id: string; isInCall: boolean }> }>);
    expect(friends.friends.find((f) => f.id === a.user.id)?.isInCall).toBe(true);

    await sb1.request('end-call', { callId });
    expect((await sa.waitFor('call-ended')).data).toEqual({ callId, reason: 'hangup' });
    expect((await sb1.waitFor('call-ended', (d) => d.reason === 'hangup')).data).toEqual({
      callId,
      reason: 'hangup',
    });
  });

  it('when the process holding one party dies, the other party gets call-ended within 30 s', {
    timeout: 90_000,
  }, async () => {
    const child = await nodes.startAnotherNode();
    try {
      // A connected call, the callee's tab on the child process.
      const [a, b] = await signUpFriends(node1);
      const sa = await connect(node1, a.token);
      const sb = await connect(child, b.token);
      // B counts as reachable once the other process has recorded B's tab.
      await sa.waitFor('friend-online', (data) => data.userId === b.user.id);
      const { callId } = (await sa.request('initiate-call', { targetUserId: b.user.id })) as {
        callId: string;
      };
      await sb.waitFor('incoming-call');
      await sb.request('accept-call', { callId });
      await sa.waitFor('call-accepted');
      // A ringing call, the caller's tab on the child process: the callee stops ringing.
      const [c, d] = await signUpFriends(node1);
      const sc = await connect(child, c.token);
      const sd = await connect(node1, d.token);
      await sc.waitFor('friend-online', (data) => data.userId === d.user.id);
      const ringing = (await sc.request('initiate-call', { targetUserId: d.user.id })) as { callId: string };
      await sd.waitFor('incoming-call');

      const crashedAt = Date.now();
      await child.crash();
      expect((await sa.waitFor('call-ended', undefined, { timeoutMs: 30_000 })).data).toEqual({
        callId,
        reason: 'error',
      });
      expect((await sd.waitFor('call-ended', undefined, { timeoutMs: 30_000 })).data).toEqual({
        callId: ringing.callId,
        reason: 'error',
      });
      expect(Date.now() - crashedAt).toBeLessThan(30_000);
      // A is free again: once B is offline, calling B is "unavailable", not "busy".
      await sa.waitFor('friend-offline', (data) => data.userId === b.user.id, { timeoutMs: 30_000 });
      await expect(sa.request('initiate-call', { targetUserId: b.user.id })).rejects.toThrow(
        /USER_UNAVAILABLE/,
      );
      const friends = await node1.request('GET', '/users/friends', { token: a.token });
      expect(friends.body.friends[0]).toMatchObject({ id: b.user.id, isInCall: false });
    } finally {
      await child.stop();
    }
  });

  it('busy holds across processes, also when two call each other at once', async () => {
    const [a, b] = await signUpFriends(node1);
    const c = await signUp(node1);
    await node1.request('POST', '/users/friend-request', { token: c.token, body: { userId: b.user.id } });
    await node1.request('POST', '/users/friend-request/accept', {
      token: b.token,
      body: { userId: c.user.id },
    });
    const sa = await connect(node1, a.token);
    const sb = await connect(node2, b.token);
    const sc = await connect(node2, c.token);
    await untilOnline(a.token, b.user.id);

    await sa.request('initiate-call', { targetUserId: b.user.id });
    await sb.waitFor('incoming-call');
    await expect(sc.request('initiate-call', { targetUserId: b.user.id })).rejects.toThrow(/USER_BUSY/);

    for (let round = 0; round < 3; round++) {
      const [x, y] = await signUpFriends(node1);
      const sx = await connect(node1, x.token);
      const sy = await connect(node2, y.token);
      await untilOnline(x.token, y.user.id);
      await untilOnline(y.token, x.user.id);
      const outcomes = await Promise.allSettled([
        sx.request('initiate-call', { targetUserId: y.user.id }),
        sy.request('initiate-call', { targetUserId: x.user.id }),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(String(lost.reason)).toMatch(/USER_BUSY/);
    }
  });
});
