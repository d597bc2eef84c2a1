/**
 * A database that cannot serve in time: a table lock held past the statement deadline, every
 * connection slot taken, a server that stops answering. Each request answers 503
 * SERVICE_UNAVAILABLE with Retry-After instead of hanging or answering 500, changes nothing,
 * and readiness says so while liveness stays 200. Against a PostgreSQL of the test's own (8
 * connection slots), never the shared one.
 */

import { handshakeStatus } from '@voice/media-server/testing';
import { ERRORS } from '@voice/protocol';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresProcess } from '../testing/PostgresProcess.ts';
import { SocketClient } from '../testing/SocketClient.ts';
import { appSocketUrl, socketTicket } from '../testing/socketTicket.ts';
import { type Reply, signUp, TestServer, uniqueName } from '../testing/TestServer.ts';

const DEADLINE_MS = 1000;
// Connection slots of the test's server; the API's pool (10) could take them all.
const MAX_CONNECTIONS = 8;
// How long the server may take to serve again once the fault is gone.
const RECOVERY_MS = 30_000;

let postgres: PostgresProcess;
let server: TestServer;

beforeAll(async () => {
  postgres = await PostgresProcess.start({ maxConnections: MAX_CONNECTIONS });
  server = await TestServer.start({
    DATABASE_URL: postgres.url,
    DB_STATEMENT_TIMEOUT_MS: String(DEADLINE_MS),
    DB_ACQUIRE_TIMEOUT_MS: String(DEADLINE_MS),
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await postgres?.stop();
});

function expectUnavailable(reply: Reply): void {
  expect(reply.status).toBe(503);
  expect(reply.body).toEqual({
    error: { code: 'SERVICE_UNAVAILABLE', message: ERRORS.SERVICE_UNAVAILABLE.message },
  });
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
}

/** The status a WebSocket handshake on /ws with `ticket` answers with (101 when accepted). */
const appSocketHandshake = (ticket: string) => handshakeStatus(appSocketUrl(server.baseUrl, ticket));

function newAccount() {
  const username = uniqueName('dl');
  return { username, email: `${username}@example.test`, password: 'secret123', acceptTerms: true };
}

async function usersNamed(username: string): Promise<number> {
  const client = await postgres.connect();
  try {
    const { rows } = await client.query('SELECT count(*)::int AS n FROM users WHERE username = $1', [
      username,
    ]);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

/** Polls until the API is ready again (the fault's leftovers cleared). */
async function readyAgain(): Promise<void> {
  const deadline = Date.now() + RECOVERY_MS;
  for (;;) {
    const ready = await server.request('GET', '/health/ready');
    if (ready.status === 200) return;
    if (Date.now() > deadline) throw new Error(`not ready again: ${JSON.stringify(ready.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Everything answers as usual: a sign-up, a sign-in, a session, readiness. */
async function expectServing(): Promise<void> {
  await readyAgain();
  const account = newAccount();
  const registered = await server.request('POST', '/auth/register', { body: account });
  expect(registered.status).toBe(201);
  const login = await server.request('POST', '/auth/login', {
    body: { username: account.username, password: account.password },
  });
  expect(login.status).toBe(200);
  expect((await server.request('GET', '/auth/me', { token: login.body.token })).status).toBe(200);
}

describe('database deadlines', () => {
  it('a lock on users past the deadline: 503 with Retry-After while it is held, nothing created, not ready, still live', async () => {
    await expectServing();
    // Signed up but never used: the session is not known to any cache, so /me must ask the database.
    const alice = await signUp(server);
    const bob = await signUp(server);
    const erin = await signUp(server);
    const frank = await signUp(server);
    // Its ticket taken before the lock: the handshake must still ask the database whether the session lives.
    const george = await signUp(server);
    const georgeTicket = await socketTicket(server.baseUrl, george.token);
    const account = newAccount();
    // Open before the lock: its requests reach the database while the lock is held.
    const socket = await SocketClient.connect(server.baseUrl, frank.token);
    const asked = await server.request('POST', '/users/friend-request', {
      token: erin.token,
      body: { userId: frank.user.id },
    });
    expect(asked.status).toBe(200);
    const locker = await postgres.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      // What accepting a friend request writes, so that the socket request surely waits too.
      await locker.query('LOCK TABLE friend_requests, friendships IN ACCESS EXCLUSIVE MODE');

      // On the app socket too: 503 SERVICE_UNAVAILABLE, for a request and for a handshake.
      await expect(socket.request('accept-friend-request', { userId: erin.user.id })).rejects.toThrow(
        /SERVICE_UNAVAILABLE/,
      );
      expect(await appSocketHandshake(georgeTicket)).toBe(503);

      expectUnavailable(await server.request('GET', '/auth/me', { token: alice.token }));
      expectUnavailable(await server.request('POST', '/auth/register', { body: account }));
      expectUnavailable(
        await server.request('POST', '/auth/login', {
          body: { username: bob.username, password: bob.password },
        }),
      );

      const ready = await server.request('GET', '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ ok: false, notReady: ['database'] });
      // Its own 1 s deadline or the statement's, whichever a busy machine lets fire first.
      expect(ready.body.checks.database).toMatch(/^(no answer within 1000 ms|unavailable)$/);
      expect((await server.request('GET', '/health/live')).body).toEqual({ ok: true });
      expect((await server.request('GET', '/health')).status).toBe(200);

      // All of it answered while the lock was still held.
      const { rows } = await locker.query(
        `SELECT count(*)::int AS n FROM pg_locks
          WHERE pid = pg_backend_pid() AND mode = 'AccessExclusiveLock' AND granted`,
      );
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    // The socket is still open and serving: the refused acceptance changed nothing and goes
    // through now, as does the refused handshake with a new ticket (a ticket is spent by any try).
    await socket.request('accept-friend-request', { userId: erin.user.id });
    const friends = await server.request('GET', '/users/friends', { token: erin.token });
    expect(friends.body.friends).toEqual([expect.objectContaining({ id: frank.user.id })]);
    expect(await appSocketHandshake(await socketTicket(server.baseUrl, george.token))).toBe(101);
    socket.close();

    // The refused sign-up left nothing behind: the same name signs up now.
    expect(await usersNamed(account.username)).toBe(0);
    expect((await server.request('POST', '/auth/register', { body: account })).status).toBe(201);
    expect(await usersNamed(account.username)).toBe(1);
    expect((await server.request('GET', '/auth/me', { token: alice.token })).status).toBe(200);
    await expectServing();
  });

  it('no free connection slot on the server: 503, not 500, and back once slots are free', async () => {
    await expectServing();
    const carol = await signUp(server);
    const account = newAccount();
    const holders: pg.Client[] = [];
    /** Opens connections until the server refuses one for lack of slots. */
    const fill = async () => {
      for (;;) {
        try {
          holders.push(await postgres.connect());
        } catch (error) {
          expect((error as { code?: string }).code).toBe('53300');
          return;
        }
      }
    };
    try {
      await fill();
      // The API's pooled connections end too, so every request needs a new one.
      const ours = await Promise.all(
        holders.map(async (client) => (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid),
      );
      await holders[0]?.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE backend_type = 'client backend' AND pid <> ALL($1::int[])`,
        [ours],
      );
      await fill();

      expectUnavailable(await server.request('GET', '/auth/me', { token: carol.token }));
      expectUnavailable(await server.request('POST', '/auth/register', { body: account }));
      expectUnavailable(
        await server.request('POST', '/auth/login', {
          body: { username: carol.username, password: carol.password },
        }),
      );
      const ready = await server.request('GET', '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ ok: false, notReady: ['database'] });
      expect((await server.request('GET', '/health/live')).status).toBe(200);
    } finally {
      await Promise.all(holders.map((client) => client.end().catch(() => {})));
    }
    await expectServing();
    expect(await usersNamed(account.username)).toBe(0);
    expect((await server.request('GET', '/auth/me', { token: carol.token })).status).toBe(200);
  });

  it('a server that stops answering (SIGSTOP): 503 instead of a hang, and back after SIGCONT', async () => {
    await expectServing();
    const dave = await signUp(server);
    const account = newAccount();
    postgres.pause();
    try {
      expectUnavailable(await server.request('GET', '/auth/me', { token: dave.token }));
      expectUnavailable(await server.request('POST', '/auth/register', { body: account }));
      expect((await server.request('GET', '/health/ready')).status).toBe(503);
      expect((await server.request('GET', '/health/live')).status).toBe(200);
    } finally {
      postgres.resume();
    }
    await expectServing();
    expect(await usersNamed(account.username)).toBe(0);
    expect((await server.request('GET', '/auth/me', { token: dave.token })).status).toBe(200);
  });
});
