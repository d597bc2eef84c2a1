import { LANGUAGE_CODES, STOCK_AVATARS } from '@voice/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

const put = (token: string, body: unknown) => server.request('PUT', '/users/profile', { token, body });
const me = async (token: string) => (await server.request('GET', '/auth/me', { token })).body.user;

describe('PUT /users/profile', () => {
  it('sets a trimmed display name and answers the own profile with email; onboarding stays open', async () => {
    const account = await signUp(server);
    expect(account.user.onboarding_completed).toBe(false);
    const res = await put(account.token, { display_name: '  Ada Lovelace  ' });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({
      id: account.user.id,
      username: account.username,
      email: account.email,
      display_name: 'Ada Lovelace',
      // Only the last onboarding step completes it, so a reload mid-way resumes the avatar step.
      onboarding_completed: false,
      is_online: true,
    });
    expect(await me(account.token)).toMatchObject({
      display_name: 'Ada Lovelace',
      onboarding_completed: false,
    });
  });

  it('completes onboarding on request, with or without an avatar, and keeps the first completion time', async () => {
    const account = await signUp(server, { displayName: 'Grace' });
    expect((await me(account.token)).onboarding_completed).toBe(false);
    const res = await put(account.token, { completeOnboarding: true });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({
      onboarding_completed: true,
      display_name: 'Grace',
      avatar_url: null,
    });
    const row = await server.services.users.findById(account.user.id);
    await put(account.token, { completeOnboarding: true, avatar: 'panda' });
    expect((await server.services.users.findById(account.user.id))?.onboarded_at).toEqual(row?.onboarded_at);
  });

  it('changing only the language or the avatar does not complete onboarding', async () => {
    const account = await signUp(server);
    const res = await put(account.token, { language: 'ja', avatar: 'koala' });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({
      language: 'ja',
      avatar_url: '/avatars/stock/koala.svg',
      onboarding_completed: false,
    });
  });

  it('accepts every language and every stock avatar', async () => {
    const account = await signUp(server);
    for (const language of LANGUAGE_CODES) {
      expect((await put(account.token, { language })).body.user.language).toBe(language);
    }
    for (const { id } of STOCK_AVATARS) {
      expect((await put(account.token, { avatar: id })).body.user.avatar_url).toBe(
        `/avatars/stock/${id}.svg`,
      );
    }
  });

  it.each([
    ['a too short display name', { display_name: ' a ' }, 'display_name'],
    ['a too long display name', { display_name: 'x'.repeat(51) }, 'display_name'],
    ['a blank display name', { display_name: '    ' }, 'display_name'],
    ['a display name that is not a string', { display_name: 42 }, 'display_name'],
    ['a null display name', { display_name: null }, 'display_name'],
    ['an unknown language', { language: 'xx' }, 'language'],
    ['a language in the wrong case', { language: 'EN' }, 'language'],
    ['an unknown stock avatar', { avatar: 'dragon' }, 'avatar'],
    ['an avatar given as a URL', { avatar: '/avatars/stock/fox.svg' }, 'avatar'],
    ['completeOnboarding false', { completeOnboarding: false }, 'completeOnboarding'],
  ])('refuses %s with 400 VALIDATION and changes nothing', async (_name, body, field) => {
    const account = await signUp(server);
    const before = await me(account.token);
    const res = await put(account.token, { ...body, ...(field === 'language' ? {} : { language: 'de' }) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION', field });
    expect(await me(account.token)).toEqual(before);
  });

  it('refuses a body with nothing to change, and ignores fields that cannot change', async () => {
    const account = await signUp(server);
    for (const body of [{}, { email: 'new@example.test' }, { username: 'renamed' }]) {
      const res = await put(account.token, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION');
    }
    const res = await put(account.token, {
      display_name: 'Kept',
      email: 'new@example.test',
      username: 'renamed',
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({
      email: account.email,
      username: account.username,
      display_name: 'Kept',
    });
  });

  it('refuses a body that is not a JSON object', async () => {
    const account = await signUp(server);
    const res = await server.request('PUT', '/users/profile', { token: account.token, raw: '"hello"' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_JSON');
  });

  it('requires a session', async () => {
    const res = await server.request('PUT', '/users/profile', { body: { display_name: 'Nobody' } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });
});
