import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer, uniqueName } from '../testing/TestServer.ts';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

const valid = () => {
  const username = uniqueName('reg');
  return { username, email: `${username}@Example.test`, password: 'secret1', acceptTerms: true };
};

async function countUsers(username: string) {
  const [row] = await server.services
    .db('users')
    .whereRaw('lower(username) = lower(?)', [username])
    .count('* as n');
  return Number(row?.n);
}

describe('POST /auth/register', () => {
  it('creates the account and answers 201 with a token and the own profile', async () => {
    const input = { ...valid(), displayName: '  Alice A.  ', language: 'de' };
    const res = await server.request('POST', '/auth/register', { body: input });
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(res.body.user).toMatchObject({
      username: input.username,
      email: input.email,
      display_name: 'Alice A.',
      avatar_url: null,
      language: 'de',
      isInCall: false,
    });
    expect(Object.keys(res.body.user).sort()).toEqual(
      [
        'avatar_url',
        'display_name',
        'email',
        'id',
        'isInCall',
        'is_online',
        'language',
        'last_seen',
        'onboarding_completed',
        'theme',
        'username',
        'voice_settings',
      ].sort(),
    );
    const me = await server.request('GET', '/auth/me', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(res.body.user.id);
  });

  it('defaults the language to ru and treats an empty display name as none', async () => {
    const res = await server.request('POST', '/auth/register', { body: { ...valid(), displayName: '' } });
    expect(res.status).toBe(201);
    expect(res.body.user.language).toBe('ru');
    expect(res.body.user.display_name).toBeNull();
  });

  it('never stores the password in clear', async () => {
    const input = valid();
    await server.request('POST', '/auth/register', { body: input });
    const row = await server.services.db('users').where({ username: input.username }).first();
    expect(row.password_hash).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(row.password_hash).not.toContain(input.password);
  });

  it('refuses a duplicate username, also differing only in case, with 409 USERNAME_TAKEN', async () => {
    const first = await signUp(server);
    for (const username of [first.username, first.username.toUpperCase()]) {
      const res = await server.request('POST', '/auth/register', {
        body: { ...valid(), username },
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        error: { code: 'USERNAME_TAKEN', message: 'Username is already taken', field: 'username' },
      });
    }
    expect(await countUsers(first.username)).toBe(1);
  });

  it('refuses a duplicate email regardless of case with 409 EMAIL_TAKEN', async () => {
    const first = await signUp(server);
    const input = { ...valid(), email: first.email.toUpperCase() };
    const res = await server.request('POST', '/auth/register', { body: input });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'EMAIL_TAKEN', message: 'Email is already registered' });
    expect(await countUsers(input.username)).toBe(0);
  });

  it.each([
    ['a 2-character username', { username: 'ab' }, 'username', 'Username must be at least 3 characters'],
    ['a username with a space', { username: 'bad name' }, 'username', 'Username may contain only letters'],
    [
      'a username with non-ASCII letters',
      { username: 'jürgen' },
      'username',
      'Username may contain only letters',
    ],
    ['a 33-character username', { username: 'a'.repeat(33) }, 'username', 'at most 32'],
    ['a 5-character password', { password: '12345' }, 'password', 'Password must be at least 6 characters'],
    ['a 129-character password', { password: 'x'.repeat(129) }, 'password', 'at most 128'],
    ['an invalid email', { email: 'not-an-email' }, 'email', 'Email must be valid'],
    ['a missing username', { username: undefined }, 'username', 'Username is required'],
    ['a missing email', { email: undefined }, 'email', 'Email is required'],
    ['a missing password', { password: undefined }, 'password', 'Password is required'],
    ['a missing terms flag', { acceptTerms: undefined }, 'acceptTerms', 'acceptTerms is required'],
    ['an unsupported language', { language: 'xx' }, 'language', 'Unsupported language'],
    ['a 1-character display name', { displayName: 'A' }, 'displayName', 'at least 2'],
  ])('refuses %s with 400 VALIDATION naming the field', async (_name, override, field, message) => {
    const input = { ...valid(), ...override };
    const res = await server.request('POST', '/auth/register', { body: input });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION');
    expect(res.body.error.field).toBe(field);
    expect(res.body.error.message).toContain(message);
    if (typeof input.username === 'string') expect(await countUsers(input.username)).toBe(0);
  });

  it('refuses a sign-up whose terms are not accepted', async () => {
    const input = { ...valid(), acceptTerms: false };
    const res = await server.request('POST', '/auth/register', { body: input });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'TERMS_NOT_ACCEPTED', field: 'acceptTerms' });
    expect(await countUsers(input.username)).toBe(0);
  });

  it('lets exactly one of two simultaneous sign-ups of the same username succeed', async () => {
    const username = uniqueName('race');
    const attempts = await Promise.all(
      ['a', 'b', 'c', 'd'].map((suffix) =>
        server.request('POST', '/auth/register', {
          body: {
            username,
            email: `${username}.${suffix}@example.test`,
            password: 'secret1',
            acceptTerms: true,
          },
        }),
      ),
    );
    const statuses = attempts.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409]);
    expect(await countUsers(username)).toBe(1);
  });
});

describe('request bodies', () => {
  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    const res = await server.request('POST', '/auth/register', { raw: '{"username": "abc",' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_JSON');
  });

  it('answers a JSON scalar with 400', async () => {
    const res = await server.request('POST', '/auth/login', { raw: '"hello"' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toMatch(/INVALID_JSON|VALIDATION/);
  });

  it('answers a 1 MB body with 413 and stores nothing', async () => {
    const input = { ...valid(), displayName: 'x'.repeat(1024 * 1024) };
    const res = await server.request('POST', '/auth/register', { body: input });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await countUsers(input.username)).toBe(0);
  });

  it('answers an empty body with 400 VALIDATION', async () => {
    const res = await server.request('POST', '/auth/register');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION');
  });

  it('answers an unknown API path with 404 in the error shape', async () => {
    const res = await server.request('GET', '/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});
