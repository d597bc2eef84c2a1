import { LANGUAGE_CODES, STOCK_AVATARS, VOICE_DEFAULTS } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, signUpFriends, TestServer } from '../testing/TestServer.ts';

let server: TestServer;
const sockets: SocketClient[] = [];
beforeAll(async () => {
  server = await TestServer.start();
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});
afterAll(() => server?.close());

async function connect(token: string): Promise<SocketClient> {
  const socket = await SocketClient.connect(server.baseUrl, token);
  sockets.push(socket);
  return socket;
}

const put = (token: string, body: unknown) => server.request('PUT', '/users/profile', { token, body });
const me = async (token: string) => (await server.request('GET', '/auth/me', { token })).body.user;

/** Voice settings: the defaults with `change` over them (an undefined field is left out). */
function voice(change: Record<string, unknown> = {}): Record<string, unknown> {
  return JSON.parse(JSON.stringify({ ...VOICE_DEFAULTS, ...change }));
}

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
    ['an unknown theme', { theme: 'blue' }, 'theme'],
    ['a theme in the wrong case', { theme: 'Light' }, 'theme'],
    ['a theme that is not a string', { theme: 1 }, 'theme'],
    ['a null theme', { theme: null }, 'theme'],
    ['a language in the wrong case', { language: 'EN' }, 'language'],
    ['an unknown stock avatar', { avatar: 'dragon' }, 'avatar'],
    ['an avatar given as a URL', { avatar: '/avatars/stock/fox.svg' }, 'avatar'],
    ['completeOnboarding false', { completeOnboarding: false }, 'completeOnboarding'],
    ['voice settings that are not an object', { voice_settings: 'loud' }, 'voice_settings'],
    [
      'voice settings with a field missing',
      { voice_settings: voice({ autoGainControl: undefined }) },
      'voice_settings.autoGainControl',
    ],
    [
      'an unknown input mode',
      { voice_settings: voice({ inputMode: 'telepathy' }) },
      'voice_settings.inputMode',
    ],
    [
      'a push-to-talk key that is not a key code',
      { voice_settings: voice({ pushToTalkKey: '<script>' }) },
      'voice_settings.pushToTalkKey',
    ],
    [
      'a push-to-talk key too long',
      { voice_settings: voice({ pushToTalkKey: 'K'.repeat(33) }) },
      'voice_settings.pushToTalkKey',
    ],
    [
      'a sensitivity above 0 dB',
      { voice_settings: voice({ sensitivityDb: 3 }) },
      'voice_settings.sensitivityDb',
    ],
    [
      'a sensitivity below -100 dB',
      { voice_settings: voice({ sensitivityDb: -101 }) },
      'voice_settings.sensitivityDb',
    ],
    [
      'a sensitivity as text',
      { voice_settings: voice({ sensitivityDb: '-40' }) },
      'voice_settings.sensitivityDb',
    ],
    [
      'a switch that is not a boolean',
      { voice_settings: voice({ noiseSuppression: 'yes' }) },
      'voice_settings.noiseSuppression',
    ],
    ['a field voice settings do not have', { voice_settings: { ...voice(), volume: 11 } }, 'voice_settings'],
  ])('refuses %s with 400 VALIDATION and changes nothing', async (_name, body, field) => {
    const account = await signUp(server);
    const before = await me(account.token);
    const res = await put(account.token, { ...body, ...(field === 'language' ? {} : { language: 'de' }) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION', field });
    expect(await me(account.token)).toEqual(before);
  });

  it('keeps the voice settings: the defaults until changed, the whole set in the own profile only', async () => {
    const account = await signUp(server);
    // None saved yet: each browser keeps its own until the first save.
    expect(account.user.voice_settings).toBeNull();
    const chosen = voice({
      inputMode: 'push-to-talk',
      pushToTalkKey: 'KeyV',
      sensitivityDb: -42,
      noiseSuppression: false,
    });
    const res = await put(account.token, { voice_settings: chosen });
    expect(res.status).toBe(200);
    expect(res.body.user.voice_settings).toEqual(chosen);
    // Another browser signing in gets them with the profile.
    const login = await server.request('POST', '/auth/login', {
      body: { username: account.username, password: account.password },
    });
    expect(login.body.user.voice_settings).toEqual(chosen);
    expect(
      (await put(account.token, { voice_settings: voice({ sensitivityDb: null }) })).body.user.voice_settings,
    ).toEqual(VOICE_DEFAULTS);
    const viewer = await signUp(server);
    const other = await server.request('GET', `/users/${account.user.id}`, { token: viewer.token });
    expect(other.body.user.voice_settings).toBeUndefined();
  });

  it('keeps the theme like the language: dark by default, in the own profile only', async () => {
    const account = await signUp(server);
    expect(account.user.theme).toBe('dark');
    const res = await put(account.token, { theme: 'light' });
    expect(res.status).toBe(200);
    expect(res.body.user.theme).toBe('light');
    expect((await me(account.token)).theme).toBe('light');
    // A new login answers it too, so another browser can apply it.
    const login = await server.request('POST', '/auth/login', {
      body: { username: account.username, password: account.password },
    });
    expect(login.body.user.theme).toBe('light');
    expect((await put(account.token, { theme: 'dark' })).body.user.theme).toBe('dark');

    const viewer = await signUp(server);
    const other = await server.request('GET', `/users/${account.user.id}`, { token: viewer.token });
    expect(other.body.user.theme).toBeUndefined();
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

describe('profile-updated', () => {
  it('a new display name reaches friends and the person’s own other tabs, not strangers', async () => {
    const [a, b] = await signUpFriends(server);
    const stranger = await signUp(server);
    const [own, friend, other] = [
      await connect(a.token),
      await connect(b.token),
      await connect(stranger.token),
    ];
    const res = await put(a.token, { display_name: 'Renamed Person' });
    expect(res.status).toBe(200);
    for (const client of [own, friend]) {
      const event = await client.waitFor('profile-updated', (d) => d.userId === a.user.id);
      expect(event.data).toEqual({ userId: a.user.id, display_name: 'Renamed Person' });
    }
    expect(await other.stillNo('profile-updated', () => true, 300)).toBe(true);
  });

  it('is not sent when the name stays the same or only the language or theme changes', async () => {
    const [a, b] = await signUpFriends(server);
    await put(a.token, { display_name: 'Same Name' });
    const friend = await connect(b.token);
    await put(a.token, { display_name: '  Same Name ' });
    await put(a.token, { language: 'fr', theme: 'light' });
    expect(await friend.stillNo('profile-updated', () => true, 300)).toBe(true);
  });
});
