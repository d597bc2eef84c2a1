/** GET /api/calls: the call history, written when each call ends. */
import { CALL_ROUTES, type CallHistoryEntry } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, signUpFriends, TestServer } from '../testing/TestServer.ts';

const RING_MS = 800;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('call history', () => {
  let server: TestServer;
  const open: SocketClient[] = [];
  const connect = async (token: string) => {
    const client = await SocketClient.connect(server.baseUrl, token, { origin: 'http://app.test' });
    open.push(client);
    return client;
  };
  const history = async (token: string, query = '') => {
    const res = await server.request('GET', `${CALL_ROUTES.history}${query}`, { token });
    return res as {
      status: number;
      body: { calls: CallHistoryEntry[]; error?: { code: string; field?: string } };
    };
  };
  const call = async (from: SocketClient, to: { user: { id: string } }) =>
    ((await from.request('initiate-call', { targetUserId: to.user.id })) as { callId: string }).callId;

  beforeAll(async () => {
    server = await TestServer.start({ CALL_RING_TIMEOUT_MS: String(RING_MS) });
  });
  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists each call newest first with direction, status, duration and the other person', async () => {
    const [a, b] = await signUpFriends(server);
    const [sa, sb] = [await connect(a.token), await connect(b.token)];

    // 1. Answered, about 1.2 s long.
    const answered = await call(sa, b);
    await sb.waitFor('incoming-call', (d) => d.callId === answered);
    await sb.request('accept-call', { callId: answered });
    await sleep(1200);
    await sa.request('end-call', { callId: answered });
    await sb.waitFor('call-ended', (d) => d.callId === answered);
    // 2. Declined by B.
    const declined = await call(sa, b);
    await sb.waitFor('incoming-call', (d) => d.callId === declined);
    await sb.request('reject-call', { callId: declined });
    await sa.waitFor('call-rejected', (d) => d.callId === declined);
    // 3. B calls A, nobody answers.
    const missed = await call(sb, a);
    await sb.waitFor('call-ended', (d) => d.callId === missed, { timeoutMs: RING_MS + 3000 });
    // 4. A calls B and gives up before an answer.
    const cancelled = await call(sa, b);
    await sa.request('end-call', { callId: cancelled });
    await sb.waitFor('call-ended', (d) => d.callId === cancelled);

    // No wait: each call is in the history by the time its parties hear that it ended.
    const mine = await history(a.token);
    expect(mine.status).toBe(200);
    expect(mine.body.calls.map((c) => c.id)).toEqual([cancelled, missed, declined, answered]);
    const [c4, c3, c2, c1] = mine.body.calls as [
      CallHistoryEntry,
      CallHistoryEntry,
      CallHistoryEntry,
      CallHistoryEntry,
    ];
    expect(c1).toMatchObject({ direction: 'outgoing', status: 'answered', end_reason: 'hangup' });
    expect(c1.user).toEqual({ id: b.user.id, username: b.username, display_name: null, avatar_url: null });
    expect(c1.duration).toBeGreaterThanOrEqual(1);
    expect(c1.duration).toBeLessThanOrEqual(3);
    expect(c1.answered_at).not.toBeNull();
    expect(c2).toMatchObject({ direction: 'outgoing', status: 'declined', duration: 0, answered_at: null });
    expect(c3).toMatchObject({ direction: 'incoming', status: 'missed', end_reason: 'timeout', duration: 0 });
    expect(c3.user.id).toBe(b.user.id);
    expect(c4).toMatchObject({ direction: 'outgoing', status: 'cancelled', end_reason: 'hangup' });

    const theirs = await history(b.token);
    expect(theirs.body.calls.map((c) => [c.direction, c.status])).toEqual([
      ['incoming', 'missed'],
      ['outgoing', 'missed'],
      ['incoming', 'declined'],
      ['incoming', 'answered'],
    ]);
    expect(theirs.body.calls[3]?.user.id).toBe(a.user.id);

    // Paging: limit, then before the last one seen.
    const first = await history(a.token, '?limit=2');
    expect(first.body.calls.map((c) => c.id)).toEqual([cancelled, missed]);
    const next = await history(
      a.token,
      `?limit=2&before=${encodeURIComponent(first.body.calls[1]?.created_at ?? '')}`,
    );
    expect(next.body.calls.map((c) => c.id)).toEqual([declined, answered]);

    // A stranger sees none of it.
    const stranger = await signUp(server);
    expect((await history(stranger.token)).body.calls).toEqual([]);
  });

  it("removing an account takes its calls out of the other person's history", async () => {
    const [a, b] = await signUpFriends(server);
    const [sa, sb] = [await connect(a.token), await connect(b.token)];
    const callId = await call(sa, b);
    await sb.waitFor('incoming-call');
    await sb.request('reject-call', { callId });
    await sleep(100);
    expect((await history(a.token)).body.calls).toHaveLength(1);
    const res = await server.request('DELETE', '/users/me', {
      token: b.token,
      body: { password: b.password },
    });
    expect(res.status).toBe(204);
    expect((await history(a.token)).body.calls).toEqual([]);
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=-1', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?limit=', 'limit'],
    ['?limit=1&limit=2', 'limit'],
    ['?before=yesterday', 'before'],
    ['?before=2026-13-45T00:00:00Z', 'before'],
    ['?before=', 'before'],
    ['?other=1', undefined],
  ])('refuses %s with 400 VALIDATION', async (query, field) => {
    const a = await signUp(server);
    const res = await history(a.token, query);
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('VALIDATION');
    if (field) expect(res.body.error?.field).toBe(field);
  });

  it('needs a session', async () => {
    expect((await server.request('GET', CALL_ROUTES.history)).status).toBe(401);
  });
});
