import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

describe('GET /users/:id', () => {
  it("answers another user's public profile, without email or onboarding state", async () => {
    const viewer = await signUp(server);
    const other = await signUp(server, { displayName: 'Other One', language: 'fr' });
    await server.request('PUT', '/users/profile', { token: other.token, body: { avatar: 'whale' } });

    const res = await server.request('GET', `/users/${other.user.id}`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({
      id: other.user.id,
      username: other.username,
      display_name: 'Other One',
      avatar_url: '/avatars/stock/whale.svg',
      language: 'fr',
      isInCall: false,
    });
    expect(Object.keys(res.body.user).sort()).toEqual(
      [
        'avatar_url',
        'display_name',
        'id',
        'isInCall',
        'is_online',
        'language',
        'last_seen',
        'username',
      ].sort(),
    );
    expect(JSON.stringify(res.body)).not.toContain(other.email);
  });

  it('carries live presence', async () => {
    const viewer = await signUp(server);
    const other = await signUp(server);
    const { presenceStore } = server.services;
    await presenceStore.connect(other.user.id);
    await presenceStore.setInCall(other.user.id, true);
    try {
      const res = await server.request('GET', `/users/${other.user.id}`, { token: viewer.token });
      expect(res.body.user).toMatchObject({ is_online: true, isInCall: true });
    } finally {
      await presenceStore.setInCall(other.user.id, false);
      await presenceStore.disconnect(other.user.id);
    }
  });

  it('hides the email even when you look yourself up', async () => {
    const account = await signUp(server);
    const res = await server.request('GET', `/users/${account.user.id}`, { token: account.token });
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBeUndefined();
  });

  it('answers 404 USER_NOT_FOUND for an unknown id', async () => {
    const account = await signUp(server);
    const res = await server.request('GET', `/users/${randomUUID()}`, { token: account.token });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('USER_NOT_FOUND');
  });

  it.each(['123', 'not-a-uuid', `${randomUUID()}x`, "1' OR '1'='1"])(
    'answers 400 VALIDATION for the malformed id %s',
    async (id) => {
      const account = await signUp(server);
      const res = await server.request('GET', `/users/${encodeURIComponent(id)}`, { token: account.token });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION', field: 'id' });
    },
  );

  it('requires a session', async () => {
    const account = await signUp(server);
    const res = await server.request('GET', `/users/${account.user.id}`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });
});
