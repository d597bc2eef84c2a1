import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../http/RateLimiter.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';

// The limits as shipped (RATE_LIMIT_FACTOR=1), with counters in memory and in Redis alike.
// TRUST_PROXY lets X-Forwarded-For play the client address: the guesser's and the owner's.
const STORES = [
  ['memory', { REDIS_URL: '' }],
  ['redis', { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }],
] as const;

const MAX = LIMITS.loginFailuresPerAccount.max;
let nextAddress = 1;
/** A client address not used before in this run (TEST-NET-3). */
const freshAddress = () => `203.0.113.${nextAddress++}`;

describe.each(STORES)('login limits (%s store)', (_store, env) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await TestServer.start({ ...env, RATE_LIMIT_FACTOR: '1', TRUST_PROXY: 'true' });
  });
  afterAll(() => server?.close());

  const login = (username: string, password: string, address: string) =>
    server.request('POST', '/auth/login', {
      body: { username, password },
      headers: { 'x-forwarded-for': address },
    });

  /** Requests a reset link for `email`, follows it, and sets `password`. */
  async function resetPassword(email: string, password: string, address: string) {
    const since = server.smtp.messages.length;
    const headers = { 'x-forwarded-for': address };
    expect((await server.request('POST', '/auth/forgot-password', { body: { email }, headers })).status).toBe(
      200,
    );
    const mail = await server.smtp.waitFor(email, { since });
    const token = mail.text?.match(/reset-password\?token=([\w-]+)/)?.[1];
    const reset = await server.request('POST', '/auth/reset-password', {
      body: { token, password, confirmPassword: password },
      headers,
    });
    expect(reset.status).toBe(200);
  }

  it('checks at most the allowed number of passwords when guesses arrive all at once', async () => {
    const account = await signUp(server);
    const address = freshAddress();
    // Count how many attempts get as far as the password check.
    const auth = server.services.auth;
    const realLogin = auth.login.bind(auth);
    let verified = 0;
    auth.login = (name, password) => {
      verified += 1;
      return realLogin(name, password);
    };
    try {
      const guesses = Array.from({ length: 94 }, (_, i) => `wrong-pass-${i}`);
      const replies = await Promise.all(
        [...guesses, account.password].map((password) => login(account.username, password, address)),
      );
      const statuses = replies.map((reply) => reply.status);
      expect(verified).toBeLessThanOrEqual(MAX);
      expect(statuses.filter((status) => status === 401 || status === 200)).toHaveLength(verified);
      expect(statuses.filter((status) => status === 429)).toHaveLength(95 - verified);
      // The right password sent last is not let through past the limit.
      if (statuses.at(-1) === 200) expect(verified).toBeLessThanOrEqual(MAX);
    } finally {
      auth.login = realLogin;
    }
  });

  it("stops a guesser's address without locking the owner out", async () => {
    const account = await signUp(server);
    const attacker = freshAddress();
    const owner = freshAddress();
    for (let i = 0; i < MAX; i++)
      expect((await login(account.username, 'wrong-pass', attacker)).status).toBe(401);
    const blocked = await login(account.username, 'wrong-pass', attacker);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(LIMITS.loginFailuresPerAccount.lockout.firstMs / 1000);

    // The owner, from their own address, signs in with the right password.
    expect((await login(account.username, account.password, owner)).status).toBe(200);
    // The guesser's address stays stopped, even with the right password.
    expect((await login(account.username, account.password, attacker)).status).toBe(429);
    expect((await login(account.email, 'wrong-pass', attacker)).status).toBe(429);
  });

  it('lifts the limit when the owner completes a password reset', async () => {
    const account = await signUp(server);
    const shared = freshAddress();
    for (let i = 0; i < MAX; i++) await login(account.username, 'wrong-pass', shared);
    expect((await login(account.username, account.password, shared)).status).toBe(429);

    await resetPassword(account.email, 'brand-new-1', freshAddress());
    expect((await login(account.username, 'brand-new-1', shared)).status).toBe(200);
  });

  it('counts the username and the email of one account as one account', async () => {
    const account = await signUp(server);
    const address = freshAddress();
    for (let i = 0; i < MAX; i++) {
      const name = i % 2 === 0 ? account.username.toUpperCase() : account.email.toUpperCase();
      expect((await login(name, 'wrong-pass', address)).status).toBe(401);
    }
    expect((await login(account.email, 'wrong-pass', address)).status).toBe(429);
    expect((await login(account.username, 'wrong-pass', address)).status).toBe(429);
  });

  it('limits guessing on names without an account alike', async () => {
    const address = freshAddress();
    const name = `nobody_${Date.now().toString(36)}`;
    for (let i = 0; i < MAX; i++) expect((await login(name, 'wrong-pass', address)).status).toBe(401);
    expect((await login(name.toUpperCase(), 'wrong-pass', address)).status).toBe(429);
  });

  it('forgets the failures of an account after a good password', async () => {
    const account = await signUp(server);
    const address = freshAddress();
    for (let i = 0; i < MAX - 1; i++) await login(account.username, 'wrong-pass', address);
    expect((await login(account.username, account.password, address)).status).toBe(200);
    for (let i = 0; i < MAX - 1; i++)
      expect((await login(account.username, 'wrong-pass', address)).status).toBe(401);
  });

  // Fifty password checks one after another: slow on a busy two-core machine.
  it('stops an address after its failures, whichever accounts it tries', async () => {
    const address = freshAddress();
    const perAddress = LIMITS.loginFailuresPerIp.max;
    expect(perAddress).toBeLessThan(LIMITS.loginPerIp.max);
    const statuses: number[] = [];
    // Names each within their own account limit add up to the address's hard limit.
    for (let i = 0; i < perAddress; i++) {
      statuses.push((await login(`spray_${i % MAX}_${address}`, 'wrong-pass', address)).status);
    }
    expect(statuses.every((status) => status === 401)).toBe(true);
    const account = await signUp(server);
    expect((await login(account.username, account.password, address)).status).toBe(429);
    expect((await login(account.username, account.password, freshAddress())).status).toBe(200);
  }, 120_000);
});
