/**
 * One voice at a time (issue 19, OneVoice.ts), held by the API whatever the browser does: the
 * real API with its embedded media server (real mediasoup, `/rtc` over WebSocket), members
 * that join as a browser does (room token from the API, then protoo), and calls over the app
 * socket; with the calls and members in Redis and, for a single process, in memory.
 */
import { randomUUID } from 'node:crypto';
import { type JoinRoomResponse, ROOM_ROUTES } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RawSocket } from '../testing/RawSocket.ts';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MEDIA_SECRET = 'one-voice-test-Vb7Rk2Lq9Wm4Xs8Pt3Jd6Hf1Gz5Nc0Ya';
/** How long to watch for something that must not happen. */
const QUIET_MS = 500;

type Account = Awaited<ReturnType<typeof signUp>>;

describe.each([
  ['calls and members in Redis', REDIS_URL],
  ['calls and members in memory', ''],
])('one voice at a time, %s', (_name, redisUrl) => {
  let server: TestServer;
  const open: Array<{ close(): void }> = [];

  beforeAll(async () => {
    server = await TestServer.start(
      { REDIS_URL: redisUrl, MEDIA_SECRET },
      { media: { secret: MEDIA_SECRET } },
    );
  });
  afterEach(() => {
    for (const socket of open.splice(0)) socket.close();
  });
  afterAll(() => server?.close());

  const befriend = async (a: Account, b: Account) => {
    await server.request('POST', '/users/friend-request', { token: a.token, body: { userId: b.user.id } });
    const res = await server.request('POST', '/users/friend-request/accept', {
      token: b.token,
      body: { userId: a.user.id },
    });
    expect(res.status).toBeLessThan(300);
  };
  const appSocket = async (account: Account) => {
    const client = await SocketClient.connect(server.baseUrl, account.token, { origin: 'http://app.test' });
    open.push(client);
    return client;
  };
  const createRoom = async (admin: Account) => {
    const res = await server.request('POST', ROOM_ROUTES.rooms, {
      token: admin.token,
      body: { name: `Lounge ${randomUUID().slice(0, 8)}`, type: 'public' },
    });
    expect(res.status).toBe(201);
    return res.body.room.id as string;
  };
  /** The room token, as the browser asks for it. */
  const token = async (account: Account, roomId: string) => {
    const res = await server.request<JoinRoomResponse>('POST', ROOM_ROUTES.join(roomId), {
      token: account.token,
      body: {},
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.roomToken;
  };
  /** Into the room on the media server with `roomToken`, as the browser goes on. */
  const connect = async (account: Account, roomId: string, roomToken: string) => {
    const query = new URLSearchParams({ roomId, peerId: account.user.id, token: roomToken });
    const rtc = await RawSocket.connectUrl(`${server.baseUrl.replace('http', 'ws')}/rtc?${query}`);
    open.push(rtc);
    const capabilities = await rtc.request('getRouterRtpCapabilities', {});
    const joined = await rtc.request('join', {
      displayName: account.user.username,
      device: { name: 'test' },
      rtpCapabilities: capabilities.data,
    });
    expect(joined.ok, JSON.stringify(joined)).toBe(true);
    return rtc;
  };
  const enter = async (account: Account, roomId: string) =>
    connect(account, roomId, await token(account, roomId));
  const notified = (rtc: RawSocket, method: string, match: (data: Record<string, unknown>) => boolean) =>
    rtc.waitFor((m) => m.notification === true && m.method === method && match(m.data as never));
  const members = async (account: Account, roomId: string) =>
    (await server.request('GET', ROOM_ROUTES.room(roomId), { token: account.token })).body.room.participants
      .map((person: { id: string }) => person.id)
      .sort();
  /** `caller` calls `callee`, whose tab `answering` answers. */
  const call = async (caller: SocketClient, callee: Account, answering: SocketClient) => {
    const { callId } = (await caller.request('initiate-call', { targetUserId: callee.user.id })) as {
      callId: string;
    };
    await answering.waitFor('incoming-call', (d) => d.callId === callId);
    return callId;
  };

  it('answering a call takes both parties out of their rooms: the members see them leave, the call goes on', async () => {
    const [alice, bob, carol, dave] = await Promise.all([
      signUp(server),
      signUp(server),
      signUp(server),
      signUp(server),
    ]);
    await befriend(carol, bob);
    const lounge = await createRoom(alice);
    const other = await createRoom(dave);
    const aliceRtc = await enter(alice, lounge);
    const bobRtc = await enter(bob, lounge);
    const carolRtc = await enter(carol, other);
    const daveRtc = await enter(dave, other);
    await expect.poll(() => members(alice, lounge)).toEqual([alice.user.id, bob.user.id].sort());
    const [bobApp, carolApp] = await Promise.all([appSocket(bob), appSocket(carol)]);

    // The caller of someone in a room rings them; nobody leaves a room while it rings.
    const callId = await call(carolApp, bob, bobApp);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect(bobRtc.open && carolRtc.open).toBe(true);

    await bobApp.request('accept-call', { callId });
    await carolApp.waitFor('call-accepted', (d) => d.callId === callId);
    for (const rtc of [bobRtc, carolRtc]) {
      await notified(rtc, 'inCall', () => true);
      await rtc.waitClosed();
    }
    await notified(aliceRtc, 'peersChanged', (d) => (d.left as string[]).includes(bob.user.id));
    await notified(daveRtc, 'peersChanged', (d) => (d.left as string[]).includes(carol.user.id));
    await expect.poll(() => members(alice, lounge)).toEqual([alice.user.id]);
    await expect.poll(() => members(dave, other)).toEqual([dave.user.id]);
    // Only they left, and the call is still on.
    expect(aliceRtc.open && daveRtc.open).toBe(true);
    expect(await carolApp.stillNo('call-ended', (d) => d.callId === callId, QUIET_MS)).toBe(true);
  });

  it('joining a room ends your answered call first, as your hangup; the room takes you', async () => {
    const [bob, carol, alice] = await Promise.all([signUp(server), signUp(server), signUp(server)]);
    await befriend(carol, bob);
    const lounge = await createRoom(alice);
    const [bobApp, carolApp] = await Promise.all([appSocket(bob), appSocket(carol)]);
    const callId = await call(carolApp, bob, bobApp);
    await bobApp.request('accept-call', { callId });
    await carolApp.waitFor('call-accepted', (d) => d.callId === callId);

    const bobRtc = await enter(bob, lounge);
    for (const app of [bobApp, carolApp])
      await app.waitFor('call-ended', (d) => d.callId === callId && d.reason === 'hangup');
    await expect.poll(() => members(alice, lounge)).toEqual([bob.user.id]);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect(bobRtc.open).toBe(true);
    expect(await server.services.calls.inCall(bob.user.id)).toBe(false);
  });

  it('joining a room cancels the call you are placing, and leaves one ringing for you ringing', async () => {
    const [bob, carol, dave, alice] = await Promise.all([
      signUp(server),
      signUp(server),
      signUp(server),
      signUp(server),
    ]);
    await befriend(bob, carol);
    await befriend(dave, bob);
    const lounge = await createRoom(alice);
    const [bobApp, carolApp, daveApp] = await Promise.all([
      appSocket(bob),
      appSocket(carol),
      appSocket(dave),
    ]);

    const placing = await call(bobApp, carol, carolApp);
    await token(bob, lounge);
    await carolApp.waitFor('call-ended', (d) => d.callId === placing && d.reason === 'hangup');
    await bobApp.waitFor('call-ended', (d) => d.callId === placing && d.reason === 'hangup');

    const ringing = await call(daveApp, bob, bobApp);
    const bobRtc = await enter(bob, lounge);
    expect(await daveApp.stillNo('call-ended', (d) => d.callId === ringing, QUIET_MS)).toBe(true);
    await bobApp.request('accept-call', { callId: ringing });
    await notified(bobRtc, 'inCall', () => true);
    await expect.poll(() => members(alice, lounge)).toEqual([]);
  });

  it('takes someone out of the room again who enters with a token given before their call was answered', async () => {
    const [bob, carol, alice] = await Promise.all([signUp(server), signUp(server), signUp(server)]);
    await befriend(carol, bob);
    const lounge = await createRoom(alice);
    await enter(alice, lounge);
    const early = await token(bob, lounge);
    const [bobApp, carolApp] = await Promise.all([appSocket(bob), appSocket(carol)]);
    const callId = await call(carolApp, bob, bobApp);
    await bobApp.request('accept-call', { callId });

    // A stray tab goes on into the room with the older token: the call stays, the room does not.
    const bobRtc = await connect(bob, lounge, early);
    await notified(bobRtc, 'inCall', () => true);
    await bobRtc.waitClosed();
    // Taken out before the others were told of him (peersChanged gathers a half second).
    await expect.poll(() => members(alice, lounge)).toEqual([alice.user.id]);
    expect(await carolApp.stillNo('call-ended', (d) => d.callId === callId, QUIET_MS)).toBe(true);
  });

  it('a refused join leaves the call alone', async () => {
    const [bob, carol, alice] = await Promise.all([signUp(server), signUp(server), signUp(server)]);
    await befriend(carol, bob);
    const res = await server.request('POST', ROOM_ROUTES.rooms, {
      token: alice.token,
      body: { name: 'Locked lounge', type: 'public', password: 'secret123' },
    });
    const roomId = res.body.room.id as string;
    const [bobApp, carolApp] = await Promise.all([appSocket(bob), appSocket(carol)]);
    const callId = await call(carolApp, bob, bobApp);
    await bobApp.request('accept-call', { callId });

    for (const password of [undefined, 'wrong-one']) {
      const refused = await server.request('POST', ROOM_ROUTES.join(roomId), {
        token: bob.token,
        body: password === undefined ? {} : { password },
      });
      expect(refused.status).toBeGreaterThanOrEqual(400);
    }
    const unknown = await server.request('POST', ROOM_ROUTES.join(randomUUID()), {
      token: bob.token,
      body: {},
    });
    expect(unknown.status).toBe(404);
    expect(await server.services.calls.inCall(bob.user.id)).toBe(true);
    expect(await carolApp.stillNo('call-ended', (d) => d.callId === callId, QUIET_MS)).toBe(true);
  });
});
