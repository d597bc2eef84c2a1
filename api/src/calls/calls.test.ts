/**
 * One-to-one call signalling over the app socket (spec section 4 "Call"), against the real
 * API with its calls in Redis and, for a single process, in memory.
 */
import { CALL_SDP_MAX_CHARS } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, signUpFriends, TestServer } from '../testing/TestServer.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RING_MS = 1500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OFFER = 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n';
const CANDIDATE = {
  candidate: 'candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host',
  sdpMid: '0',
  sdpMLineIndex: 0,
};

describe.each([
  ['calls in Redis', REDIS_URL],
  ['calls in memory', ''],
])('%s', (_name, redisUrl) => {
  let server: TestServer;
  const open: SocketClient[] = [];
  const connect = async (token: string) => {
    const client = await SocketClient.connect(server.baseUrl, token, { origin: 'http://app.test' });
    open.push(client);
    return client;
  };
  /** Friends A (one tab) and B (`tabsOfB` tabs), all connected. */
  const pair = async (tabsOfB = 1) => {
    const [a, b] = await signUpFriends(server);
    const sa = await connect(a.token);
    const sbs: SocketClient[] = [];
    for (let i = 0; i < tabsOfB; i++) sbs.push(await connect(b.token));
    return { a, b, sa, sbs, sb: sbs[0] as SocketClient };
  };
  /** A calls B and B's first tab answers. */
  const connected = async () => {
    const p = await pair();
    const { callId } = (await p.sa.request('initiate-call', { targetUserId: p.b.user.id })) as {
      callId: string;
    };
    await p.sb.waitFor('incoming-call', (d) => d.callId === callId);
    await p.sb.request('accept-call', { callId });
    await p.sa.waitFor('call-accepted', (d) => d.callId === callId);
    return { ...p, callId };
  };
  const friendsOf = async (token: string) =>
    (await server.request('GET', '/users/friends', { token })).body.friends as Array<{
      id: string;
      isInCall: boolean | null;
    }>;

  beforeAll(async () => {
    server = await TestServer.start({ REDIS_URL: redisUrl, CALL_RING_TIMEOUT_MS: String(RING_MS) });
  });
  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('rings every tab of the callee, binds the answering tab and relays only between the two', async () => {
    const { a, b, sa, sbs } = await pair(2);
    const [sb1, sb2] = sbs as [SocketClient, SocketClient];
    // A third person who is friends with both, to hear the in-call status.
    const c = await signUp(server);
    for (const other of [a, b]) {
      await server.request('POST', '/users/friend-request', {
        token: c.token,
        body: { userId: other.user.id },
      });
      await server.request('POST', '/users/friend-request/accept', {
        token: other.token,
        body: { userId: c.user.id },
      });
    }
    const sc = await connect(c.token);

    const reply = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    const { callId } = reply;
    expect(callId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await sa.waitFor('call-initiated')).data).toEqual({ callId, targetUserId: b.user.id });
    for (const tab of [sb1, sb2]) {
      const ring = await tab.waitFor('incoming-call');
      expect(ring.data).toEqual({
        callId,
        caller: { id: a.user.id, username: a.username, display_name: null, avatar_url: null },
      });
    }
    expect(sb1.received.some((r) => r.method === 'call-initiated')).toBe(false);

    expect(await sb2.request('accept-call', { callId })).toEqual({ ok: true });
    await sa.waitFor('call-accepted', (d) => d.callId === callId);
    expect((await sb1.waitFor('call-ended')).data).toEqual({ callId, reason: 'answered-elsewhere' });
    expect(sb2.received.some((r) => r.method === 'call-ended')).toBe(false);

    // In call: friends are told, and every user payload says so.
    for (const id of [a.user.id, b.user.id])
      await sc.waitFor('friend-call-status-changed', (d) => d.userId === id && d.isInCall === true);
    const cFriends = await friendsOf(c.token);
    expect(
      cFriends
        .filter((f) => f.isInCall)
        .map((f) => f.id)
        .sort(),
    ).toEqual([a.user.id, b.user.id].sort());

    // Offer, answer and candidates go from one bound tab to the other only.
    expect(await sa.request('webrtc-offer', { callId, sdp: OFFER })).toEqual({ ok: true });
    expect((await sb2.waitFor('webrtc-offer')).data).toEqual({ callId, sdp: OFFER });
    expect(await sb2.request('webrtc-answer', { callId, sdp: `${OFFER}a=answer\r\n` })).toEqual({ ok: true });
    expect((await sa.waitFor('webrtc-answer')).data).toEqual({ callId, sdp: `${OFFER}a=answer\r\n` });
    await sa.request('webrtc-ice-candidate', { callId, candidate: CANDIDATE });
    await sb2.request('webrtc-ice-candidate', { callId, candidate: { candidate: '' } });
    expect((await sb2.waitFor('webrtc-ice-candidate')).data).toEqual({ callId, candidate: CANDIDATE });
    expect((await sa.waitFor('webrtc-ice-candidate')).data).toEqual({ callId, candidate: { candidate: '' } });
    // B's other tab is not bound: it may not relay, and gets nothing.
    await expect(sb1.request('webrtc-offer', { callId, sdp: OFFER })).rejects.toThrow(/CALL_NOT_FOUND/);
    await sleep(200);
    expect(sb1.received.filter((r) => r.method.startsWith('webrtc-'))).toEqual([]);
    expect(sa.received.filter((r) => r.method === 'webrtc-offer')).toEqual([]);

    // Either party ends: both bound tabs hear it, and the in-call status clears.
    expect(await sa.request('end-call', { callId })).toEqual({ ok: true });
    expect((await sb2.waitFor('call-ended')).data).toEqual({ callId, reason: 'hangup' });
    expect((await sa.waitFor('call-ended')).data).toEqual({ callId, reason: 'hangup' });
    for (const id of [a.user.id, b.user.id])
      await sc.waitFor('friend-call-status-changed', (d) => d.userId === id && d.isInCall === false);
    expect((await friendsOf(c.token)).some((f) => f.isInCall)).toBe(false);
    // The call is gone: ending again or relaying is refused, and both may call again.
    await expect(sb2.request('end-call', { callId })).rejects.toThrow(/CALL_NOT_FOUND/);
    await expect(sa.request('webrtc-offer', { callId, sdp: OFFER })).rejects.toThrow(/CALL_NOT_FOUND/);
    const again = (await sb2.request('initiate-call', { targetUserId: a.user.id })) as { callId: string };
    await sa.waitFor('incoming-call', (d) => d.callId === again.callId);
  });

  it("while ringing, the caller's offer and candidates reach every tab of the callee; the answer comes with accept-call", async () => {
    const { a, b, sa, sbs } = await pair(2);
    const [sb1, sb2] = sbs as [SocketClient, SocketClient];
    const mallory = await signUp(server);
    const sm = await connect(mallory.token);
    const { callId } = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    expect(await sa.request('webrtc-offer', { callId, sdp: OFFER })).toEqual({ ok: true });
    expect(await sa.request('webrtc-ice-candidate', { callId, candidate: CANDIDATE })).toEqual({ ok: true });
    for (const tab of [sb1, sb2]) {
      expect((await tab.waitFor('webrtc-offer')).data).toEqual({ callId, sdp: OFFER });
      expect((await tab.waitFor('webrtc-ice-candidate')).data).toEqual({ callId, candidate: CANDIDATE });
    }
    // Before the answer nobody else relays: not the callee's tabs, not the caller's other tab, not a stranger.
    const sa2 = await connect(a.token);
    for (const [tab, method, data] of [
      [sb1, 'webrtc-answer', { callId, sdp: OFFER }],
      [sb1, 'webrtc-ice-candidate', { callId, candidate: CANDIDATE }],
      [sb2, 'webrtc-offer', { callId, sdp: OFFER }],
      [sa, 'webrtc-answer', { callId, sdp: OFFER }],
      [sa2, 'webrtc-offer', { callId, sdp: OFFER }],
      [sm, 'webrtc-ice-candidate', { callId, candidate: CANDIDATE }],
    ] as const)
      await expect(tab.request(method, data), `${method}`).rejects.toMatchObject({
        code: 404,
        message: expect.stringMatching(/CALL_NOT_FOUND/),
      });

    const answer = `${OFFER}a=answer\r\n`;
    expect(await sb2.request('accept-call', { callId, sdp: answer })).toEqual({ ok: true });
    await sa.waitFor('webrtc-answer');
    const order = sa.received.filter((r) => r.method === 'call-accepted' || r.method === 'webrtc-answer');
    expect(order).toEqual([
      expect.objectContaining({ method: 'call-accepted', data: { callId } }),
      expect.objectContaining({ method: 'webrtc-answer', data: { callId, sdp: answer } }),
    ]);
    // From now on only the answering tab hears the caller.
    await sa.request('webrtc-ice-candidate', { callId, candidate: { candidate: '' } });
    await sb2.waitFor('webrtc-ice-candidate', (d) => (d.candidate as { candidate: string }).candidate === '');
    await sb2.request('webrtc-ice-candidate', { callId, candidate: CANDIDATE });
    await sa.waitFor('webrtc-ice-candidate');
    await sleep(200);
    expect(sb1.received.filter((r) => r.method === 'webrtc-ice-candidate')).toHaveLength(1);
    expect(sa2.received.filter((r) => r.method.startsWith('webrtc-'))).toEqual([]);
    expect(sm.received.filter((r) => r.method.startsWith('webrtc-'))).toEqual([]);
  });

  it('reject: the caller gets call-rejected and every tab of the callee stops ringing', async () => {
    const { b, sa, sbs } = await pair(2);
    const { callId } = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    await sbs[1]?.waitFor('incoming-call');
    expect(await sbs[0]?.request('reject-call', { callId })).toEqual({ ok: true });
    expect((await sa.waitFor('call-rejected')).data).toEqual({ callId });
    for (const tab of sbs)
      expect((await tab.waitFor('call-ended')).data).toEqual({ callId, reason: 'declined' });
    await expect(sbs[1]?.request('accept-call', { callId })).rejects.toThrow(/CALL_NOT_FOUND/);
  });

  it('the caller cancels a ringing call: the callee stops ringing', async () => {
    const { b, sa, sb } = await pair();
    const { callId } = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    await sb.waitFor('incoming-call');
    await sa.request('end-call', { callId });
    expect((await sb.waitFor('call-ended')).data).toEqual({ callId, reason: 'hangup' });
  });

  it('refuses a call to someone who is not a friend, or to oneself', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const sa = await connect(a.token);
    const sb = await connect(b.token);
    await expect(sa.request('initiate-call', { targetUserId: b.user.id })).rejects.toThrow(/NOT_FRIENDS/);
    await expect(sa.request('initiate-call', { targetUserId: a.user.id })).rejects.toThrow(/VALIDATION/);
    expect(await sb.stillNo('incoming-call', () => true, 300)).toBe(true);
  });

  it('a callee with no connected tab is unavailable', async () => {
    const [a, b] = await signUpFriends(server);
    const sa = await connect(a.token);
    await expect(sa.request('initiate-call', { targetUserId: b.user.id })).rejects.toMatchObject({
      code: 409,
      message: expect.stringMatching(/USER_UNAVAILABLE/),
    });
  });

  it('a callee already in a call, or ringing, is busy; so is a caller in a call', async () => {
    const { b, callId } = await connected();
    const d = await signUp(server);
    await server.request('POST', '/users/friend-request', { token: d.token, body: { userId: b.user.id } });
    await server.request('POST', '/users/friend-request/accept', {
      token: b.token,
      body: { userId: d.user.id },
    });
    const sd = await connect(d.token);
    await expect(sd.request('initiate-call', { targetUserId: b.user.id })).rejects.toThrow(/USER_BUSY/);

    // Ringing counts too.
    const p = await pair();
    await p.sa.request('initiate-call', { targetUserId: p.b.user.id });
    const e = await signUp(server);
    await server.request('POST', '/users/friend-request', { token: e.token, body: { userId: p.b.user.id } });
    await server.request('POST', '/users/friend-request/accept', {
      token: p.b.token,
      body: { userId: e.user.id },
    });
    const se = await connect(e.token);
    await expect(se.request('initiate-call', { targetUserId: p.b.user.id })).rejects.toThrow(/USER_BUSY/);
    // B, in a call, cannot start another.
    const sb2 = await connect(b.token);
    await expect(sb2.request('initiate-call', { targetUserId: d.user.id })).rejects.toThrow(/USER_BUSY/);
    expect(callId).toBeTruthy();
  });

  it('two friends calling each other at the same moment make exactly one call', async () => {
    for (let round = 0; round < 5; round++) {
      const { a, b, sa, sb } = await pair();
      const outcomes = await Promise.allSettled([
        sa.request('initiate-call', { targetUserId: b.user.id }),
        sb.request('initiate-call', { targetUserId: a.user.id }),
      ]);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(String(lost[0]?.reason)).toMatch(/USER_BUSY/);
    }
  });

  it('two tabs accepting at once: exactly one wins, the other hears 409', async () => {
    for (let round = 0; round < 5; round++) {
      const { b, sa, sbs } = await pair(2);
      const { callId } = (await sa.request('initiate-call', { targetUserId: b.user.id })) as {
        callId: string;
      };
      await Promise.all(sbs.map((tab) => tab.waitFor('incoming-call')));
      const outcomes = await Promise.allSettled(sbs.map((tab) => tab.request('accept-call', { callId })));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toMatchObject({
        code: 409,
        message: expect.stringMatching(/CALL_ALREADY_ANSWERED/),
      });
      await sa.waitFor('call-accepted');
      expect(sa.received.filter((r) => r.method === 'call-accepted')).toHaveLength(1);
    }
  });

  it('the caller ending while the callee accepts: the call ends for both, whatever the order', async () => {
    for (let round = 0; round < 5; round++) {
      const { a, b, sa, sb } = await pair();
      const { callId } = (await sa.request('initiate-call', { targetUserId: b.user.id })) as {
        callId: string;
      };
      await sb.waitFor('incoming-call');
      const [ended, accepted] = await Promise.allSettled([
        sa.request('end-call', { callId }),
        sb.request('accept-call', { callId }),
      ]);
      expect(ended.status).toBe('fulfilled');
      await sa.waitFor('call-ended', (d) => d.callId === callId);
      await sb.waitFor('call-ended', (d) => d.callId === callId);
      if (accepted.status === 'rejected') expect(String(accepted.reason)).toMatch(/CALL_NOT_FOUND/);
      // Nobody is left busy or in call.
      await sleep(100);
      expect((await friendsOf(a.token)).some((f) => f.isInCall)).toBe(false);
      await sb.request('initiate-call', { targetUserId: a.user.id });
    }
  });

  it("refuses a third person's end, accept, reject or relay of someone else's call, and sends nothing", async () => {
    const { a, sa, sb, callId } = await connected();
    const mallory = await signUp(server);
    const sm = await connect(mallory.token);
    for (const [method, data] of [
      ['end-call', { callId }],
      ['accept-call', { callId }],
      ['reject-call', { callId }],
      ['webrtc-offer', { callId, sdp: OFFER }],
      ['webrtc-answer', { callId, sdp: OFFER }],
      ['webrtc-ice-candidate', { callId, candidate: CANDIDATE }],
      ['call-muted', { callId, muted: true }],
    ] as const) {
      await expect(sm.request(method, data)).rejects.toMatchObject({
        code: 404,
        message: expect.stringMatching(/CALL_NOT_FOUND/),
      });
    }
    // Not even the caller's own other tab may act for the bound one.
    const sa2 = await connect(a.token);
    await expect(sa2.request('webrtc-offer', { callId, sdp: OFFER })).rejects.toThrow(/CALL_NOT_FOUND/);
    await expect(sa2.request('end-call', { callId })).rejects.toThrow(/CALL_NOT_FOUND/);
    await sleep(300);
    for (const tab of [sa, sb])
      expect(tab.received.filter((r) => r.method.startsWith('webrtc-') || r.method === 'call-ended')).toEqual(
        [],
      );
  });

  it('tells the other party of an answered call when one mutes or unmutes, and nobody before it is answered', async () => {
    const ringing = await pair();
    const { callId: ringingId } = (await ringing.sa.request('initiate-call', {
      targetUserId: ringing.b.user.id,
    })) as { callId: string };
    await expect(ringing.sa.request('call-muted', { callId: ringingId, muted: true })).rejects.toThrow(
      /CALL_NOT_FOUND/,
    );

    const { sa, sb, callId } = await connected();
    const since = sb.received.length;
    expect(await sa.request('call-muted', { callId, muted: true })).toEqual({ ok: true });
    expect((await sb.waitFor('call-muted', () => true, { since })).data).toEqual({ callId, muted: true });
    await sb.request('call-muted', { callId, muted: false });
    expect((await sa.waitFor('call-muted', (d) => d.muted === false)).data).toEqual({ callId, muted: false });
  });

  it(`a call nobody answers ends with timeout after the ring time (${RING_MS} ms here)`, async () => {
    const { b, sa, sb } = await pair();
    const started = Date.now();
    const { callId } = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    expect((await sa.waitFor('call-ended', undefined, { timeoutMs: RING_MS + 3000 })).data).toEqual({
      callId,
      reason: 'timeout',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(RING_MS - 50);
    expect((await sb.waitFor('call-ended')).data).toEqual({ callId, reason: 'timeout' });
    await expect(sb.request('accept-call', { callId })).rejects.toThrow(/CALL_NOT_FOUND/);
  });

  it('an answered call does not time out', async () => {
    const { sa, sb, callId } = await connected();
    await sleep(RING_MS + 500);
    expect(sa.received.some((r) => r.method === 'call-ended')).toBe(false);
    expect(sb.received.some((r) => r.method === 'call-ended')).toBe(false);
    await sa.request('end-call', { callId, reason: 'webrtc-failed' });
    expect((await sb.waitFor('call-ended')).data).toEqual({ callId, reason: 'webrtc-failed' });
  });

  it('a bound tab that closes ends the call: hangup to the other party', async () => {
    const { a, b, sa, sb, callId } = await connected();
    sb.close();
    expect((await sa.waitFor('call-ended')).data).toEqual({ callId, reason: 'hangup' });
    const sb2 = await connect(b.token);
    // B is free again.
    await sb2.request('initiate-call', { targetUserId: a.user.id });
  });

  it('answers bad input to every call method with a clear error, and keeps serving', async () => {
    const { b, sa, callId } = await connected();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const bad: Array<[string, unknown, RegExp]> = [
      ['initiate-call', {}, /VALIDATION/],
      ['initiate-call', { targetUserId: 42 }, /VALIDATION/],
      ['initiate-call', { targetUserId: 'not-a-uuid' }, /VALIDATION/],
      ['initiate-call', { targetUserId: b.user.id, extra: 1 }, /VALIDATION/],
      ['accept-call', {}, /VALIDATION/],
      ['accept-call', { callId: 'nope' }, /VALIDATION/],
      ['accept-call', { callId: unknown }, /CALL_NOT_FOUND/],
      ['accept-call', { callId, sdp: 7 }, /VALIDATION/],
      ['accept-call', { callId, sdp: '' }, /VALIDATION/],
      ['accept-call', { callId, sdp: 'x'.repeat(CALL_SDP_MAX_CHARS + 1) }, /VALIDATION/],
      ['reject-call', { callId: null }, /VALIDATION/],
      ['reject-call', { callId: unknown }, /CALL_NOT_FOUND/],
      ['end-call', { callId: [callId] }, /VALIDATION/],
      ['end-call', { callId, reason: 'busy' }, /VALIDATION/],
      ['end-call', { callId: unknown }, /CALL_NOT_FOUND/],
      ['webrtc-offer', { callId }, /VALIDATION/],
      ['webrtc-offer', { callId, sdp: 5 }, /VALIDATION/],
      ['webrtc-offer', { callId, sdp: 'x'.repeat(CALL_SDP_MAX_CHARS + 1) }, /VALIDATION/],
      ['webrtc-answer', { callId: unknown, sdp: OFFER }, /CALL_NOT_FOUND/],
      ['webrtc-answer', { sdp: OFFER }, /VALIDATION/],
      ['webrtc-ice-candidate', { callId, candidate: 'candidate:1' }, /VALIDATION/],
      ['webrtc-ice-candidate', { callId, candidate: { candidate: 'x'.repeat(1025) } }, /VALIDATION/],
      ['webrtc-ice-candidate', { callId, candidate: { ...CANDIDATE, evil: true } }, /VALIDATION/],
      ['webrtc-ice-candidate', { callId, candidate: { ...CANDIDATE, sdpMLineIndex: -1 } }, /VALIDATION/],
      ['webrtc-ice-candidate', { callId, candidate: null }, /VALIDATION/],
      ['call-muted', { callId }, /VALIDATION/],
      ['call-muted', { callId, muted: 'yes' }, /VALIDATION/],
      ['call-muted', { callId, muted: true, extra: 1 }, /VALIDATION/],
      ['call-muted', { callId: 'nope', muted: true }, /VALIDATION/],
      ['call-muted', { callId: unknown, muted: true }, /CALL_NOT_FOUND/],
    ];
    for (const [method, data, error] of bad) {
      await expect(
        sa.request(method, data),
        `${method} ${JSON.stringify(data)?.slice(0, 80)}`,
      ).rejects.toThrow(error);
      await sleep(110); // within the socket's request budget
    }
    // The connection and the call still work.
    expect(sa.closed).toBe(false);
    expect(await sa.request('webrtc-offer', { callId, sdp: 'x'.repeat(CALL_SDP_MAX_CHARS) })).toEqual({
      ok: true,
    });
    expect((await server.request('GET', '/health')).status).toBe(200);
  });
});
