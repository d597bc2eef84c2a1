import { brotliCompressSync, gzipSync } from 'node:zlib';
import jwt from 'jsonwebtoken';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';

// Inputs that once reached PostgreSQL or zlib unchecked and came back as 500s.
let server: TestServer;
let account: Awaited<ReturnType<typeof signUp>>;
beforeAll(async () => {
  server = await TestServer.start();
  account = await signUp(server);
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(() => server?.close());

const NUL = '\u0000';
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error;

describe('a NUL character in a string field', () => {
  const cases: [string, string, string, () => Record<string, unknown>, boolean][] = [
    ['search', 'POST', '/users/search', () => ({ searchTerm: `ab${NUL}cd` }), true],
    ['login (name)', 'POST', '/auth/login', () => ({ username: `a${NUL}b`, password: 'secret123' }), false],
    ['login (password)', 'POST', '/auth/login', () => ({ username: 'someone', password: `x${NUL}` }), false],
    [
      'register',
      'POST',
      '/auth/register',
      () => ({
        username: 'nul_user',
        email: 'nul@example.test',
        password: 'secret123',
        displayName: `Evil${NUL}Name`,
        acceptTerms: true,
      }),
      false,
    ],
    ['profile', 'PUT', '/users/profile', () => ({ display_name: `Bad${NUL}Name` }), true],
    ['check-username', 'POST', '/auth/check-username', () => ({ username: `ab${NUL}c` }), false],
    ['forgot-password', 'POST', '/auth/forgot-password', () => ({ email: `a${NUL}@example.test` }), false],
    [
      'reset-password',
      'POST',
      '/auth/reset-password',
      () => ({ token: `t${NUL}`, password: 'secret123', confirmPassword: 'secret123' }),
      false,
    ],
  ];
  it.each(cases)('is refused with 400 VALIDATION: %s', async (_name, method, route, body, signedIn) => {
    const error = vi.spyOn(server.services.logger, 'error');
    const res = await server.request(method, route, {
      body: body(),
      ...(signedIn ? { token: account.token } : {}),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION');
    expect(res.body.error.field).toBeTruthy();
    expect(error).not.toHaveBeenCalled();
  });

  it('is found at any depth without recursion, and other fields still validate as before', async () => {
    // 20,000 levels of nesting: a recursive walk would overflow the stack.
    const deep = `${'['.repeat(20_000)}"x\\u0000"${']'.repeat(20_000)}`;
    const res = await server.request('POST', '/auth/login', {
      raw: `{"username":"someone","password":"secret123","extra":${deep}}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION', field: 'extra' });
    const ok = await server.request('POST', '/users/search', {
      token: account.token,
      body: { searchTerm: 'ab' },
    });
    expect(ok.status).toBe(200);
  });
});

describe('a compressed request body', () => {
  const json = JSON.stringify({ username: 'someone', password: 'wrong123' });
  const send = (body: Uint8Array, encoding: string) =>
    fetch(`${server.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      body,
    });

  it('is read when it is valid gzip or brotli', async () => {
    for (const [encoding, body] of [
      ['gzip', gzipSync(json)],
      ['br', brotliCompressSync(json)],
    ] as const) {
      const res = await send(body, encoding);
      expect(res.status, encoding).toBe(401);
      expect((await errorOf(res)).code).toBe('INVALID_CREDENTIALS');
    }
  });

  it('answers 400 in our error shape when corrupt, without an ERROR in the log', async () => {
    const error = vi.spyOn(server.services.logger, 'error');
    const gzip = gzipSync(json);
    for (const [encoding, body] of [
      ['gzip', Buffer.from('this is not gzip at all')],
      ['gzip', gzip.subarray(0, gzip.length - 12)],
      ['br', Buffer.from('this is not brotli at all, not even close')],
      ['deflate', Buffer.from('nor deflate')],
    ] as const) {
      for (let i = 0; i < 3; i += 1) {
        const res = await send(body, encoding);
        expect(res.status, encoding).toBe(400);
        expect((await errorOf(res)).code).toBe('INVALID_JSON');
      }
    }
    expect(error).not.toHaveBeenCalled();
  });

  it('answers 415 for an encoding we do not support', async () => {
    for (const encoding of ['compress', 'zstd', 'x-nonsense']) {
      const res = await send(Buffer.from(json), encoding);
      expect(res.status, encoding).toBe(415);
      expect((await errorOf(res)).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
  });
});

describe('a session token signed with the right secret', () => {
  const sign = (claims: Record<string, unknown>) =>
    jwt.sign(claims, server.services.config.jwtSecret, { algorithm: 'HS256' });
  const me = (token: string) => server.request('GET', '/auth/me', { token });

  it('is refused (401, not 500) when sub or jti is not a UUID', async () => {
    const error = vi.spyOn(server.services.logger, 'error');
    const claims = jwt.decode(account.token) as jwt.JwtPayload;
    for (const bad of [
      { sub: 'not-a-uuid' },
      { jti: 'not-a-uuid' },
      { sub: `${claims.sub}${NUL}` },
      { jti: 42 },
      { sub: '' },
    ]) {
      const res = await me(sign({ ...claims, ...bad }));
      expect(res.status, JSON.stringify(bad)).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
    expect(error).not.toHaveBeenCalled();
  });

  it('is refused without an expiry, even for a live session', async () => {
    const { exp: _exp, ...claims } = jwt.decode(account.token) as jwt.JwtPayload;
    expect((await me(sign({ ...claims, exp: Math.floor(Date.now() / 1000) + 600 }))).status).toBe(200);
    expect((await me(sign(claims))).status).toBe(401);
  });

  it('still works with ids in upper case (they name the same session)', async () => {
    const claims = jwt.decode(account.token) as jwt.JwtPayload;
    const upper = sign({ ...claims, sub: claims.sub?.toUpperCase(), jti: claims.jti?.toUpperCase() });
    const res = await me(upper);
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(account.user.id);
  });
});
