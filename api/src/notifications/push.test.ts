/**
 * Web push against a push service on loopback (let through by PUSH_ALLOWED_HOSTS): each
 * request carries a VAPID JWT for the service's origin and an aes128gcm body the test
 * decrypts with the subscription's own keys; what is pushed when; what is refused.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { PUSH_DELIVERY, type PushPayload, STOCK_AVATARS } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../http/addresses.ts';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, signUpFriends, TestServer } from '../testing/TestServer.ts';
import { FakePushService, type TestSubscription, verifyVapid } from './pushTesting.ts';

const RING_MS = 1500;

let server: TestServer;
let push: FakePushService;
let publicKey: string;
const open: SocketClient[] = [];

const connect = async (token: string) => {
  const client = await SocketClient.connect(server.baseUrl, token, { origin: 'https://app.test' });
  open.push(client);
  return client;
};
const subscribe = (token: string, subscription: unknown, isSafari: unknown = false) =>
  server.request('POST', '/notifications/subscribe', { token, body: { subscription, isSafari } });
/** A fresh subscription for the person with `token`. */
const subscribed = async (token: string): Promise<TestSubscription> => {
  const sub = push.subscription();
  expect((await subscribe(token, sub.json)).status).toBe(201);
  return sub;
};
const stored = (endpoint: string) =>
  server.services.db('push_subscriptions').where({ endpoint }).first<{ user_id: string } | undefined>();
/** The payloads pushed to `sub` once `count` have arrived. */
const payloads = async (sub: TestSubscription, count = 1): Promise<PushPayload[]> =>
  (await push.waitFor(sub.path, count)).map((received) => sub.decrypt(received.body));

beforeAll(async () => {
  push = await FakePushService.start();
  server = await TestServer.start({
    PUSH_ALLOWED_HOSTS: push.host,
    CALL_RING_TIMEOUT_MS: String(RING_MS),
    PUBLIC_URL: 'https://app.test',
  });
  publicKey = (await server.request('GET', '/notifications/vapid-public-key')).body.publicKey;
});
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});
afterAll(async () => {
  await server?.close();
  await push?.close();
});

describe('GET /api/notifications/vapid-public-key', () => {
  it('answers the generated key, kept in DATA_DIR readable by the service alone', async () => {
    const res = await server.request('GET', '/notifications/vapid-public-key');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, publicKey: server.services.config.vapid.publicKey });
    const point = Buffer.from(res.body.publicKey, 'base64url');
    expect(point.length).toBe(65);
    expect(point[0]).toBe(4);
    expect(statSync(path.join(server.dataDir, 'vapid-keys.json')).mode & 0o777).toBe(0o600);
  });
});

describe('push delivery', () => {
  it('POST test: a VAPID-signed aes128gcm push the browser decrypts, in its language', async () => {
    const me = await signUp(server, { language: 'de' });
    const sub = await subscribed(me.token);
    const res = await server.request('POST', '/notifications/test', { token: me.token });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ success: true });

    const [received] = await push.waitFor(sub.path);
    if (!received) throw new Error('no push');
    const claims = verifyVapid(received.headers.authorization, publicKey);
    expect(claims.aud).toBe(push.origin);
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    expect(claims.sub).toMatch(/^mailto:.+@app\.test$/);
    expect(received.headers['content-encoding']).toBe('aes128gcm');
    expect(received.headers.ttl).toBe(String(PUSH_DELIVERY.ttlSeconds));
    expect(sub.decrypt(received.body)).toEqual({
      type: 'test',
      tag: 'test',
      title: 'Benachrichtigungen sind aktiv',
      body: 'So informiert dich Voice über Anrufe und Einladungen.',
      icon: null,
    });
  });

  it('one subscription per browser: a re-subscribe replaces it, and it moves with the person signed in', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const sub = await subscribed(a.token);
    expect((await subscribe(a.token, sub.json, true)).status).toBe(201);
    expect(await stored(sub.json.endpoint)).toMatchObject({ user_id: a.user.id, is_safari: true });

    expect((await subscribe(b.token, sub.json)).status).toBe(201);
    expect(await stored(sub.json.endpoint)).toMatchObject({ user_id: b.user.id });
    await server.request('POST', '/notifications/test', { token: a.token });
    await server.request('POST', '/notifications/test', { token: b.token });
    await push.waitFor(sub.path, 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(push.to(sub.path)).toHaveLength(1);
  });

  it('DELETE subscribe forgets the browser (before a logout); another person cannot remove it', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const sub = await subscribed(a.token);
    const remove = (token: string) =>
      server.request('DELETE', '/notifications/subscribe', { token, body: { endpoint: sub.json.endpoint } });
    expect((await remove(b.token)).status).toBe(204);
    expect(await stored(sub.json.endpoint)).toBeDefined();
    expect((await remove(a.token)).status).toBe(204);
    expect(await stored(sub.json.endpoint)).toBeUndefined();
  });

  it('a push service answering 410 removes the subscription', async () => {
    const me = await signUp(server);
    const sub = await subscribed(me.token);
    push.answer(sub.path, 410);
    await server.request('POST', '/notifications/test', { token: me.token });
    await push.waitFor(sub.path);
    await expect.poll(() => stored(sub.json.endpoint)).toBeUndefined();
  });

  it('a slow push service does not delay the answer; a failing one is tried again after a pause', async () => {
    const me = await signUp(server);
    const slow = await subscribed(me.token);
    const failing = await subscribed(me.token);
    push.answer(slow.path, 201, 10_000);
    push.answer(failing.path, 500);

    const started = Date.now();
    const res = await server.request('POST', '/notifications/test', { token: me.token });
    expect(res.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(1000);

    const [first, second] = await push.waitFor(failing.path, 2, 5000);
    if (!first || !second) throw new Error('no retry');
    expect(second.at - first.at).toBeGreaterThanOrEqual(PUSH_DELIVERY.firstRetryMs - 50);
    expect(failing.decrypt(second.body)).toMatchObject({ type: 'test' });
    expect(await stored(failing.json.endpoint)).toBeDefined();
  });
});

describe('what is pushed when', () => {
  it('an incoming call rings as a push in the callee’s language, withdrawn when the caller cancels', async () => {
    const [a, b] = await signUpFriends(server);
    await server.request('PUT', '/users/profile', { token: b.token, body: { language: 'fr' } });
    const sub = await subscribed(b.token);
    const sa = await connect(a.token);
    await connect(b.token);

    const { callId } = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    const [ringing] = await payloads(sub);
    expect(ringing).toEqual({
      type: 'incoming-call',
      tag: `call:${callId}`,
      callId,
      title: 'Appel entrant',
      body: `${a.username} vous appelle`,
      icon: null,
      actions: { accept: 'Accepter', reject: 'Refuser' },
      caller: { id: a.user.id, username: a.username, display_name: null, avatar_url: null },
    });

    await sa.request('end-call', { callId });
    const [, withdrawn] = await payloads(sub, 2);
    expect(withdrawn).toEqual({ type: 'withdraw', tag: `call:${callId}` });
  });

  it('a call that times out is withdrawn too; one answered in a shown tab was never pushed', async () => {
    const [a, b] = await signUpFriends(server);
    const sub = await subscribed(b.token);
    const sa = await connect(a.token);
    const sb = await connect(b.token);

    const first = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    const [, timedOut] = await payloads(sub, 2);
    expect(timedOut).toEqual({ type: 'withdraw', tag: `call:${first.callId}` });
    await sa.waitFor('call-ended', (d) => d.callId === first.callId);

    expect(await sb.request('set-visibility', { visible: true })).toEqual({ ok: true });
    const second = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    await sb.waitFor('incoming-call', (d) => d.callId === second.callId);
    await sb.request('accept-call', { callId: second.callId });
    await sa.request('end-call', { callId: second.callId });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(push.to(sub.path)).toHaveLength(2);
  });

  it('a shown tab gets the in-page alert only; once hidden or closed, pushes come again', async () => {
    const [a, b] = await signUpFriends(server);
    const sub = await subscribed(b.token);
    const sa = await connect(a.token);
    const sb = await connect(b.token);
    await sb.request('set-visibility', { visible: true });

    const shown = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    await sb.waitFor('incoming-call', (d) => d.callId === shown.callId);
    await sa.request('end-call', { callId: shown.callId });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(push.to(sub.path)).toHaveLength(0);

    await sb.request('set-visibility', { visible: false });
    const hidden = (await sa.request('initiate-call', { targetUserId: b.user.id })) as { callId: string };
    expect((await payloads(sub))[0]).toMatchObject({ type: 'incoming-call', callId: hidden.callId });
    await sa.request('end-call', { callId: hidden.callId });
    await payloads(sub, 2);

    await sb.request('set-visibility', { visible: true });
    sb.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const c = await signUp(server);
    await server.request('POST', '/users/friend-request', { token: c.token, body: { userId: b.user.id } });
    expect((await payloads(sub, 3))[2]).toMatchObject({ type: 'friend-request', userId: c.user.id });
  });

  it('a friend request and a room invitation, with the sender’s name and absolute picture URL', async () => {
    const a = await signUp(server, { language: 'ja' });
    const b = await signUp(server, { language: 'en', displayName: 'Bea Sender' });
    const sub = await subscribed(a.token);
    const profile = await server.request('PUT', '/users/profile', {
      token: b.token,
      body: { avatar: STOCK_AVATARS[0].id },
    });
    const icon = `https://app.test${profile.body.user.avatar_url}`;

    await server.request('POST', '/users/friend-request', { token: b.token, body: { userId: a.user.id } });
    expect((await payloads(sub))[0]).toEqual({
      type: 'friend-request',
      tag: `friend-request:${b.user.id}`,
      userId: b.user.id,
      title: '新しい友達リクエスト',
      body: 'Bea Senderさんが友達に追加しようとしています',
      icon,
      actions: { accept: '承認' },
    });

    await server.request('POST', '/users/friend-request/accept', {
      token: a.token,
      body: { userId: b.user.id },
    });
    const room = (
      await server.request('POST', '/rooms', { token: b.token, body: { name: 'Tea room', type: 'public' } })
    ).body.room as { id: string };
    const invited = await server.request('POST', `/rooms/${room.id}/invitations`, {
      token: b.token,
      body: { userIds: [a.user.id] },
    });
    expect(invited.status).toBe(201);
    const [, invitation] = await payloads(sub, 2);
    expect(invitation).toMatchObject({
      type: 'room-invitation',
      roomId: room.id,
      title: 'ルームへの招待',
      body: 'Bea Senderさんがルーム「Tea room」に招待しています',
      icon,
      actions: { join: '参加' },
    });
  });
});

describe('refused and bad input', () => {
  it('refuses endpoints that are not https URLs of public hosts outside the test list', async () => {
    const me = await signUp(server);
    const keys = push.subscription().json.keys;
    for (const endpoint of [
      'http://example.com/push/1',
      'https://127.0.0.1/push/1',
      'https://10.1.2.3/push/1',
      'https://[::1]/push/1',
      'https://[fe80::1]/push/1',
      'https://localhost/push/1',
      'https://169.254.169.254/latest/meta-data',
      'https://user:secret@example.com/push/1',
      'ftp://example.com/push/1',
      `http://127.0.0.1:${Number(new URL(push.origin).port) + 1}/push/1`,
      'not a url',
    ]) {
      const res = await subscribe(me.token, { endpoint, keys });
      expect(res.status, endpoint).toBe(400);
      expect(res.body.error.code, endpoint).toBe('PUSH_ENDPOINT_REFUSED');
      expect(await stored(endpoint)).toBeUndefined();
    }
  });

  it('classifies addresses: loopback, private, CGNAT, link-local, multicast, reserved are not public', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.1.1',
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
      '0.0.0.0',
      '::1',
      '::',
      '::ffff:127.0.0.1',
      'fc00::1',
      'fe80::1',
      'ff02::1',
      '2001:db8::1',
    ])
      expect(isPublicAddress(address), address).toBe(false);
    for (const address of ['8.8.8.8', '142.250.74.46', '2a00:1450:4001:80b::200a'])
      expect(isPublicAddress(address), address).toBe(true);
  });

  it('answers 400 VALIDATION to bad bodies and 401 without a token', async () => {
    const me = await signUp(server);
    const good = push.subscription().json;
    const bad: unknown[] = [
      undefined,
      {},
      { subscription: good },
      { subscription: good, isSafari: 'yes' },
      { subscription: good, isSafari: false, extra: 1 },
      { subscription: { ...good, endpoint: 42 }, isSafari: false },
      { subscription: { ...good, endpoint: `${push.origin}/${'a'.repeat(3000)}` }, isSafari: false },
      { subscription: { ...good, keys: { auth: good.keys.auth } }, isSafari: false },
      { subscription: { ...good, keys: { ...good.keys, p256dh: 'abc' } }, isSafari: false },
      {
        subscription: { ...good, keys: { ...good.keys, p256dh: `A${good.keys.p256dh.slice(1)}` } },
        isSafari: false,
      },
      { subscription: { ...good, keys: { ...good.keys, auth: good.keys.p256dh } }, isSafari: false },
      { subscription: { ...good, keys: { ...good.keys, auth: '!!!!' } }, isSafari: false },
      { subscription: 'x', isSafari: false },
      [good],
    ];
    for (const body of bad) {
      const res = await server.request('POST', '/notifications/subscribe', { token: me.token, body });
      expect(res.status, JSON.stringify(body)?.slice(0, 80)).toBe(400);
      expect(res.body.error.code).toMatch(/VALIDATION|INVALID_JSON/);
    }
    for (const body of [
      undefined,
      {},
      { endpoint: 1 },
      { endpoint: 'x'.repeat(3000) },
      { endpoint: 'a', b: 1 },
    ]) {
      const res = await server.request('DELETE', '/notifications/subscribe', { token: me.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION');
    }
    expect((await subscribe('', good)).status).toBe(401);
    expect(
      (await server.request('DELETE', '/notifications/subscribe', { body: { endpoint: 'x' } })).status,
    ).toBe(401);
    expect((await server.request('POST', '/notifications/test')).status).toBe(401);
  });

  it('set-visibility takes {visible: boolean} only', async () => {
    const me = await signUp(server);
    const socket = await connect(me.token);
    for (const data of [{}, { visible: 'yes' }, { visible: 1 }, { visible: null }, { visible: true, x: 1 }])
      await expect(socket.request('set-visibility', data)).rejects.toThrow(/VALIDATION/);
    expect(await socket.request('set-visibility', { visible: false })).toEqual({ ok: true });
  });
});
