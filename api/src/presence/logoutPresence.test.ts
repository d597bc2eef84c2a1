import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUpFriends, TestServer } from '../testing/TestServer.ts';

// The spec's grace period, so a logout that waited for it could not pass for an immediate one.
const WAIT_MS = 5000;

describe('presence when a person logs out', () => {
  let server: TestServer;
  const open: SocketClient[] = [];
  const connect = async (token: string) => {
    const client = await SocketClient.connect(server.baseUrl, token);
    open.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await TestServer.start({ PRESENCE_DISCONNECT_WAIT_MS: String(WAIT_MS) });
  });
  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('logging out sets you offline for friends at once', async () => {
    const [a, b] = await signUpFriends(server);
    const watcher = await connect(a.token);
    await connect(b.token);
    await connect(b.token); // a second tab of the same session closes too
    await watcher.waitFor('friend-online', (d) => d.userId === b.user.id);

    const started = performance.now();
    const res = await server.request('POST', '/auth/logout', { token: b.token });
    expect(res.status).toBe(204);
    const offline = await watcher.waitFor('friend-offline', (d) => d.userId === b.user.id, {
      timeoutMs: WAIT_MS,
    });
    expect(offline.at - started).toBeLessThan(1500);
    const friends = await server.request('GET', '/users/friends', { token: a.token });
    expect(friends.body.friends[0]).toMatchObject({ id: b.user.id, is_online: false });
  });

  it('a closed tab still gets the grace period', { timeout: 15_000 }, async () => {
    const [a, b] = await signUpFriends(server);
    const watcher = await connect(a.token);
    const tab = await connect(b.token);
    await watcher.waitFor('friend-online', (d) => d.userId === b.user.id);

    const started = performance.now();
    tab.close();
    const offline = await watcher.waitFor('friend-offline', (d) => d.userId === b.user.id, {
      timeoutMs: WAIT_MS + 3000,
    });
    expect(offline.at - started).toBeGreaterThan(WAIT_MS - 500);
  });

  it('logging out of one session keeps you online while another has a tab', async () => {
    const [a, b] = await signUpFriends(server);
    const login = await server.request('POST', '/auth/login', {
      body: { username: b.username, password: b.password },
    });
    expect(login.status).toBe(200);
    const watcher = await connect(a.token);
    await connect(b.token);
    const otherDevice = await connect(login.body.token);
    await watcher.waitFor('friend-online', (d) => d.userId === b.user.id);

    await server.request('POST', '/auth/logout', { token: b.token });
    expect(await watcher.stillNo('friend-offline', (d) => d.userId === b.user.id, 1500)).toBe(true);
    expect(otherDevice.closed).toBe(false);
  });
});
