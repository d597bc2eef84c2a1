import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

describe('POST /auth/login', () => {
  it('signs in with the username in any case, and with the email', async () => {
    const account = await signUp(server);
    for (const login of [
      account.username,
      account.username.toUpperCase(),
      account.email,
      account.email.toUpperCase(),
    ]) {
      const res = await server.request('POST', '/auth/login', {
        body: { username: login, password: account.password },
      });
      expect(res.status, login).toBe(200);
      expect(res.body.user).toMatchObject({ id: account.user.id, email: account.email });
      expect((await server.request('GET', '/auth/me', { token: res.body.token })).status).toBe(200);
    }
  });

  it('answers a wrong password and an unknown user alike: 401 INVALID_CREDENTIALS', async () => {
    const account = await signUp(server);
    const wrong = await server.request('POST', '/auth/login', {
      body: { username: account.username, password: 'nope123' },
    });
    const unknown = await server.request('POST', '/auth/login', {
      body: { username: 'nobody_here_x', password: 'nope123' },
    });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: { code: 'INVALID_CREDENTIALS', message: 'Invalid username or password' },
      });
    }
  });

  it('answers empty fields with 400 "Please fill in all fields"', async () => {
    for (const body of [{ username: '', password: 'x' }, { username: 'someone', password: '' }, {}]) {
      const res = await server.request('POST', '/auth/login', { body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION');
    }
    const res = await server.request('POST', '/auth/login', { body: { username: '', password: '' } });
    expect(res.body.error.message).toContain('Please fill in all fields');
  });
});

describe('session tokens', () => {
  it('answers a method a route does not take with 404 in the error shape', async () => {
    const account = await signUp(server);
    for (const [method, route] of [
      ['PUT', '/auth/me'],
      ['DELETE', '/auth/login'],
      ['OPTIONS', '/auth/me'],
      ['PATCH', '/users/profile'],
    ] as const) {
      const res = await server.request(method, route, { token: account.token });
      expect(res.status, `${method} ${route}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('GET /auth/me without a token answers 401 UNAUTHORIZED', async () => {
    const res = await server.request('GET', '/auth/me');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('POST /auth/logout answers 204 and the token is refused from then on', async () => {
    const account = await signUp(server);
    const other = await server.request('POST', '/auth/login', {
      body: { username: account.username, password: account.password },
    });
    const res = await server.request('POST', '/auth/logout', { token: account.token });
    expect(res.status).toBe(204);
    expect((await server.request('GET', '/auth/me', { token: account.token })).status).toBe(401);
    expect((await server.request('POST', '/auth/logout', { token: account.token })).status).toBe(401);
    // Other sessions of the same person stay signed in.
    expect((await server.request('GET', '/auth/me', { token: other.body.token })).status).toBe(200);
  });

  it('refuses a tampered token', async () => {
    const account = await signUp(server);
    const [header, payload, signature] = account.token.split('.');
    const claims = JSON.parse(Buffer.from(payload as string, 'base64url').toString());
    const forged = Buffer.from(
      JSON.stringify({ ...claims, sub: '00000000-0000-0000-0000-000000000000' }),
    ).toString('base64url');
    for (const token of [`${header}.${forged}.${signature}`, `${account.token.slice(0, -2)}xx`]) {
      expect((await server.request('GET', '/auth/me', { token })).status).toBe(401);
    }
  });

  it('refuses a token signed with alg none', async () => {
    const account = await signUp(server);
    const claims = jwt.decode(account.token) as jwt.JwtPayload;
    const unsigned = jwt.sign(claims, '', { algorithm: 'none' });
    const res = await server.request('GET', '/auth/me', { token: unsigned });
    expect(res.status).toBe(401);
  });

  it('refuses a token signed with another secret or algorithm', async () => {
    const account = await signUp(server);
    const claims = jwt.decode(account.token) as jwt.JwtPayload;
    const other = jwt.sign(claims, 'another-secret-another-secret-another', { algorithm: 'HS256' });
    const hs512 = jwt.sign(claims, server.services.config.jwtSecret, { algorithm: 'HS512' });
    for (const token of [other, hs512])
      expect((await server.request('GET', '/auth/me', { token })).status).toBe(401);
  });

  it('refuses an expired token', async () => {
    const account = await signUp(server);
    const claims = jwt.decode(account.token) as jwt.JwtPayload;
    const expired = jwt.sign(
      { ...claims, iat: (claims.iat ?? 0) - 7200, exp: Math.floor(Date.now() / 1000) - 60 },
      server.services.config.jwtSecret,
      {
        algorithm: 'HS256',
      },
    );
    expect((await server.request('GET', '/auth/me', { token: expired })).status).toBe(401);
  });

  it('refuses malformed Authorization headers', async () => {
    for (const authorization of ['Bearer', 'Basic abc', 'Bearer a.b.c', `Bearer ${'x'.repeat(5000)}`]) {
      const res = await server.request('GET', '/auth/me', { headers: { authorization } });
      expect(res.status, authorization.slice(0, 20)).toBe(401);
    }
  });
});

describe('POST /auth/check-username', () => {
  it('says available for a free, well-formed name', async () => {
    const res = await server.request('POST', '/auth/check-username', { body: { username: 'free_name_123' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ available: true });
  });

  it('says taken for an existing name in any case', async () => {
    const account = await signUp(server);
    const res = await server.request('POST', '/auth/check-username', {
      body: { username: account.username.toUpperCase() },
    });
    expect(res.body).toEqual({ available: false, reason: 'taken' });
  });

  it.each([
    ['ab', 'too_short'],
    ['a'.repeat(33), 'too_long'],
    ['with space', 'invalid_characters'],
    ['żółw', 'invalid_characters'],
  ])('says unavailable for %j with reason %s', async (username, reason) => {
    const res = await server.request('POST', '/auth/check-username', { body: { username } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ available: false, reason });
  });

  it('answers a missing username with 400 VALIDATION', async () => {
    const res = await server.request('POST', '/auth/check-username', { body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION', field: 'username' });
  });
});
