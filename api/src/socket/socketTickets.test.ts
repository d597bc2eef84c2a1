/**
 * Socket tickets (issue 19, item 7): the route that hands them out, their one use, their
 * expiry in the shared store, and the stores themselves. The API runs on the real database
 * and Redis.
 */
import { RedisLink } from '@voice/bus';
import { SOCKET_ROUTES, SOCKET_TICKET } from '@voice/protocol';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { handshake } from '../testing/handshake.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { SHARED_REDIS_URL } from '../testing/TwoNodes.ts';
import { RedisTicketStore } from './RedisTicketStore.ts';
import { MemoryTicketStore } from './TicketStore.ts';

const TICKET = /^[A-Za-z0-9_-]{43}$/;
const holder = { userId: '00000000-0000-4000-8000-000000000001', sessionId: 'session-1' };

let server: TestServer;
let redis: ReturnType<typeof createClient>;
beforeAll(async () => {
  server = await TestServer.start({ REDIS_URL: SHARED_REDIS_URL });
  redis = await createClient({ url: SHARED_REDIS_URL }).connect();
});
afterAll(async () => {
  await redis?.close();
  await server?.close();
});

const issue = (token?: string, headers: Record<string, string> = {}) =>
  server.request('POST', SOCKET_ROUTES.ticket, { token, headers });
const handshakeStatus = async (ticket: string) =>
  (await handshake(`${server.baseUrl.replace(/^http/, 'ws')}/ws?ticket=${encodeURIComponent(ticket)}`))
    .status;
const ticketKey = (ticket: string) => `${server.services.config.redisPrefix}socket-ticket:${ticket}`;

describe(`POST ${SOCKET_ROUTES.ticket}`, () => {
  it('hands a live session a fresh random ticket for 30 s, kept by no cache', async () => {
    const a = await signUp(server);
    const before = Date.now();
    const first = await issue(a.token);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(first.body).sort()).toEqual(['expiresAt', 'ticket']);
    expect(first.body.ticket).toMatch(TICKET);
    expect(first.body.expiresAt).toBeGreaterThanOrEqual(before + SOCKET_TICKET.ttlSeconds * 1000);
    expect(first.body.expiresAt).toBeLessThanOrEqual(Date.now() + SOCKET_TICKET.ttlSeconds * 1000);
    const second = await issue(a.token);
    expect(second.body.ticket).toMatch(TICKET);
    expect(second.body.ticket).not.toBe(first.body.ticket);
    // In the shared Redis, with its expiry set there: any process takes it, none keeps it.
    const ttl = await redis.pTTL(ticketKey(first.body.ticket));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(SOCKET_TICKET.ttlSeconds * 1000);
  });

  it('answers 401 UNAUTHORIZED without a session token, or with a bad or ended one', async () => {
    const a = await signUp(server);
    const ended = await signUp(server);
    await server.request('POST', '/auth/logout', { token: ended.token });
    const cases: Array<[string, Record<string, string>]> = [
      ['no header', {}],
      ['empty bearer', { authorization: 'Bearer ' }],
      ['not bearer', { authorization: `Basic ${a.token}` }],
      ['tampered', { authorization: `Bearer ${a.token}x` }],
      ['garbage', { authorization: 'Bearer not-a-token' }],
      ['oversized', { authorization: `Bearer ${'a'.repeat(6000)}` }],
      ['logged out', { authorization: `Bearer ${ended.token}` }],
    ];
    for (const [name, headers] of cases) {
      const reply = await issue(undefined, headers);
      expect(reply.status, name).toBe(401);
      expect(reply.body.error.code, name).toBe('UNAUTHORIZED');
      expect(reply.body.ticket, name).toBeUndefined();
    }
    expect((await issue(a.token)).status).toBe(200);
  });

  it('ignores what a body says, refuses other methods, and keeps serving', async () => {
    const a = await signUp(server);
    const withBody = await server.request('POST', SOCKET_ROUTES.ticket, {
      token: a.token,
      body: { userId: '00000000-0000-4000-8000-000000000000', ttl: 1e9 },
    });
    expect(withBody.status).toBe(200);
    expect(withBody.body.expiresAt).toBeLessThanOrEqual(Date.now() + SOCKET_TICKET.ttlSeconds * 1000);
    const broken = await server.request('POST', SOCKET_ROUTES.ticket, { token: a.token, raw: '{"a":' });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('INVALID_JSON');
    const got = await server.request('GET', SOCKET_ROUTES.ticket, { token: a.token });
    expect(got.status).toBe(404);
    expect((await issue(a.token)).status).toBe(200);
  });
});

describe('a ticket at the handshake', () => {
  it('opens one socket: of two handshakes at once with one ticket, exactly one gets in', async () => {
    const a = await signUp(server);
    const { ticket } = (await issue(a.token)).body;
    const statuses = await Promise.all([handshakeStatus(ticket), handshakeStatus(ticket)]);
    expect(statuses.sort()).toEqual([101, 401]);
    expect(await redis.exists(ticketKey(ticket))).toBe(0);
  });

  it('is refused with 401 once it has expired', async () => {
    const a = await signUp(server);
    const { ticket } = (await issue(a.token)).body;
    // Its 30 s passed at once: Redis drops it as it would at the end of them.
    expect(await redis.pExpire(ticketKey(ticket), 1)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await handshakeStatus(ticket)).toBe(401);
    // A fresh one still works.
    expect(await handshakeStatus((await issue(a.token)).body.ticket)).toBe(101);
  });
});

describe('ticket stores', () => {
  it('MemoryTicketStore gives a ticket once, and not after its time', async () => {
    let now = 1_000_000;
    const store = new MemoryTicketStore(() => now);
    await store.put('t1', holder, 30_000);
    await store.put('t2', holder, 30_000);
    expect(await store.take('t1')).toEqual(holder);
    expect(await store.take('t1')).toBeNull();
    expect(await store.take('unknown')).toBeNull();
    now += 30_000;
    expect(await store.take('t2')).toBeNull();
  });

  it('RedisTicketStore gives a ticket once, not after its time, and nothing for a value not its own', async () => {
    const link = await RedisLink.connect(SHARED_REDIS_URL, createLogger('error', 'test'));
    try {
      const store = new RedisTicketStore(link, `test:tickets:${process.pid}:${Date.now()}:`);
      await store.put('t1', holder, 30_000);
      expect(await store.take('t1')).toEqual(holder);
      expect(await store.take('t1')).toBeNull();
      await store.put('t2', holder, 5);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(await store.take('t2')).toBeNull();
      for (const value of ['not json', '{"userId":1,"sessionId":"s"}', 'null', '[]']) {
        await redis.set(store.key('odd'), value, { PX: 10_000 });
        expect(await store.take('odd'), value).toBeNull();
      }
    } finally {
      await link.close();
    }
  });
});
