import { SOCKET_ROUTES } from '@voice/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { LIMITS } from './RateLimiter.ts';

// RATE_LIMIT_FACTOR=1: the limits as shipped. With REDIS_URL set the counters live in Redis.
let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start({ RATE_LIMIT_FACTOR: '1' });
});
afterAll(() => server?.close());

describe('rate limits', () => {
  it('locks an account to an address after repeated failed logins with 429 RATE_LIMITED and Retry-After', async () => {
    const account = await signUp(server);
    const attempt = (password: string) =>
      server.request('POST', '/auth/login', { body: { username: account.username, password } });
    for (let i = 0; i < LIMITS.loginFailuresPerAccount.max; i++)
      expect((await attempt('wrong-pass')).status).toBe(401);
    const blocked = await attempt('wrong-pass');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toEqual({
      code: 'RATE_LIMITED',
      message: 'Too many requests. Please try again later.',
    });
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(LIMITS.loginFailuresPerAccount.lockout.firstMs / 1000);
    // Even the right password from that address waits until the lock ends (other addresses
    // do not: see auth/LoginGuard.test.ts).
    expect((await attempt(account.password)).status).toBe(429);
  });

  it('limits password-reset requests per account', async () => {
    const account = await signUp(server);
    const statuses: number[] = [];
    for (let i = 0; i <= LIMITS.forgotPasswordPerAccount.max; i++) {
      statuses.push(
        (await server.request('POST', '/auth/forgot-password', { body: { email: account.email } })).status,
      );
    }
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it('limits socket tickets per person, and not the next person', async () => {
    const account = await signUp(server);
    const ticket = (token: string) => server.request('POST', SOCKET_ROUTES.ticket, { token });
    const statuses: number[] = [];
    for (let i = 0; i <= LIMITS.socketTicketsPerUser.max; i++)
      statuses.push((await ticket(account.token)).status);
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    const limited = await ticket(account.token);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = await signUp(server);
    expect((await ticket(other.token)).status).toBe(200);
  });

  it('limits searches per person', async () => {
    const account = await signUp(server);
    let status = 200;
    for (let i = 0; i <= LIMITS.searchPerUser.max && status === 200; i++) {
      status = (
        await server.request('POST', '/users/search', { token: account.token, body: { searchTerm: 'zz' } })
      ).status;
    }
    expect(status).toBe(429);
    // Someone else is not affected.
    const other = await signUp(server);
    expect(
      (await server.request('POST', '/users/search', { token: other.token, body: { searchTerm: 'zz' } }))
        .status,
    ).toBe(200);
  });
});
