/**
 * A resync after Redis came back (Presence.resync) against a real Redis: someone who connects
 * while it runs is stored by their connection, then swept by the resync, which read the store
 * after but did not know them. They must stay online for their friends.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpFriends, TestServer } from '../testing/TestServer.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('presence resync', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await TestServer.start({ REDIS_URL, REDIS_PREFIX: `test:${randomUUID()}:` });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('keeps online a friend who connected while the resync ran', async () => {
    const [viewer, friend] = await signUpFriends(server);
    const { presence } = server.services;
    const resync = presence.resync();
    // The resync has read who is here (its first step runs once the current task yields).
    await Promise.resolve();
    await Promise.resolve();
    await presence.connected(friend.user.id);
    await resync;
    const res = await server.request('GET', '/users/friends', { token: viewer.token });
    expect(res.status).toBe(200);
    const listed = (res.body.friends as Array<{ id: string; is_online: boolean | null }>).find(
      (f) => f.id === friend.user.id,
    );
    expect(listed?.is_online).toBe(true);
    presence.disconnected(friend.user.id, { immediate: true });
  });
});
