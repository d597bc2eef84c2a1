/**
 * Group rooms over REST and the app socket (issue 10 part 1), against the real API with
 * PostgreSQL, and Redis or memory stores; media servers are stood in for on the bus.
 */
import { randomUUID } from 'node:crypto';
import { type Bus, roomCommandsChannel } from '@voice/bus';
import { FORWARDING, ROOM_TOKEN, type RoomCommand, type RoomTokenClaims } from '@voice/protocol';
import jwt from 'jsonwebtoken';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, signUpFriends, TestServer } from '../testing/TestServer.ts';
import { FakeMediaServers } from './roomTesting.ts';
import { mediaSecretKey } from './roomToken.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Every bus message on `roomCommandsChannel`, as a media server would hear it. */
async function commandsOn(bus: Bus): Promise<RoomCommand[]> {
  const heard: RoomCommand[] = [];
  await bus.subscribe(roomCommandsChannel, (command) => {
    heard.push(command);
  });
  return heard;
}

describe.each([
  ['stores in Redis', REDIS_URL],
  ['stores in memory', ''],
])('rooms, %s', (_name, redisUrl) => {
  let server: TestServer;
  let media: FakeMediaServers;
  const serverId = `m-${randomUUID()}`;
  const open: SocketClient[] = [];
  const connect = async (token: string) => {
    const client = await SocketClient.connect(server.baseUrl, token, { origin: 'http://app.test' });
    open.push(client);
    return client;
  };
  const createRoom = async (token: string, body: Record<string, unknown> = {}) => {
    const res = await server.request('POST', '/rooms', {
      token,
      body: { name: `Room ${randomUUID().slice(0, 8)}`, type: 'public', ...body },
    });
    expect(res.status).toBe(201);
    return res.body.room as {
      id: string;
      name: string;
      loudest: number;
      stage: boolean;
      maxParticipants: number;
    };
  };
  const join = (token: string, roomId: string, body: Record<string, unknown> = {}) =>
    server.request('POST', `/rooms/${roomId}/join`, { token, body });

  beforeAll(async () => {
    server = await TestServer.start({ REDIS_URL: redisUrl });
    media = new FakeMediaServers(server);
    await media.announce(serverId);
  });
  afterEach(() => {
    for (const client of open.splice(0)) client.close();
  });
  afterAll(async () => {
    media?.stop();
    await server?.close();
  });

  it('creates a room whose creator is its admin, and never returns its password', async () => {
    const a = await signUp(server);
    const res = await server.request('POST', '/rooms', {
      token: a.token,
      body: { name: '  Evening talk ', description: 'About books', type: 'public', password: 'open sesame' },
    });
    expect(res.status).toBe(201);
    expect(res.body.room).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Evening talk',
      description: 'About books',
      type: 'public',
      hasPassword: true,
      locked: false,
      admin: { id: a.user.id, username: a.username, display_name: null, avatar_url: null },
      memberCount: 0,
      maxParticipants: 25,
      loudest: 3,
      stage: false,
      participants: [],
      moderators: [],
      created_at: expect.any(String),
    });
    const got = await server.request('GET', `/rooms/${res.body.room.id}`, { token: a.token });
    expect(got.body.room).toEqual(res.body.room);
    const list = await server.request('GET', '/rooms', { token: a.token });
    for (const body of [res.body, got.body, list.body]) {
      expect(JSON.stringify(body)).not.toMatch(/open sesame|password_hash|scrypt/);
    }
    // The stored password is an scrypt hash.
    const row = await server.services.db('rooms').where({ id: res.body.room.id }).first('password_hash');
    expect(row.password_hash).toMatch(/^scrypt\$/);
  });

  it('lists public rooms and the private rooms one administers, joined before or is invited to', async () => {
    const [a, b] = await signUpFriends(server);
    const c = await signUp(server);
    const tag = randomUUID().slice(0, 8);
    const pub = await createRoom(a.token, { name: `Pub ${tag} 100%` });
    const priv = await createRoom(a.token, { name: `PRIV ${tag}`, type: 'private' });
    const names = async (token: string, query = tag) =>
      (
        (await server.request('GET', `/rooms?query=${encodeURIComponent(query)}`, { token })).body
          .rooms as Array<{
          id: string;
        }>
      ).map((r) => r.id);

    expect(await names(a.token)).toEqual([priv.id, pub.id]);
    expect(await names(c.token)).toEqual([pub.id]);
    expect(await names(b.token)).toEqual([pub.id]);
    // Case-insensitive, and % is a literal character.
    expect(await names(a.token, `priv ${tag}`)).toEqual([priv.id]);
    expect(await names(a.token, `${tag} 100%`)).toEqual([pub.id]);
    expect(await names(a.token, `${tag}%`)).toEqual([]);
    // A stranger cannot see or join the private room at all.
    expect((await server.request('GET', `/rooms/${priv.id}`, { token: c.token })).body.error.code).toBe(
      'ROOM_NOT_FOUND',
    );
    expect((await join(c.token, priv.id)).body.error.code).toBe('ROOM_NOT_FOUND');

    // Invited: listed; joined through the invitation: still listed after it is used up.
    const invited = await server.request('POST', `/rooms/${priv.id}/invitations`, {
      token: a.token,
      body: { userIds: [b.user.id] },
    });
    expect(await names(b.token)).toEqual([priv.id, pub.id]);
    const accepted = await server.request(
      'POST',
      `/rooms/invitations/${invited.body.invitations[0].id}/accept`,
      {
        token: b.token,
      },
    );
    expect(accepted.status).toBe(200);
    expect(await names(b.token)).toEqual([priv.id, pub.id]);
    expect((await join(b.token, priv.id)).status).toBe(200);
  });

  it('lets only the admin change or delete a room, and tells its media server to close it', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const room = await createRoom(a.token, { password: 'first-pass' });
    const patch = (token: string, body: unknown) =>
      server.request('PATCH', `/rooms/${room.id}`, { token, body });

    const changed = await patch(a.token, {
      name: 'Renamed',
      description: 'New words',
      locked: true,
      maxParticipants: 10,
      type: 'private',
    });
    expect(changed.status).toBe(200);
    expect(changed.body.room).toMatchObject({
      name: 'Renamed',
      description: 'New words',
      locked: true,
      maxParticipants: 10,
      type: 'private',
      hasPassword: true,
    });
    expect((await patch(a.token, { password: null, description: '' })).body.room).toMatchObject({
      hasPassword: false,
      description: null,
    });
    expect((await patch(a.token, {})).status).toBe(200);
    // b never joined the (now private) room: it does not exist for them.
    expect((await patch(b.token, { name: 'Mine' })).body.error.code).toBe('ROOM_NOT_FOUND');
    await patch(a.token, { type: 'public' });
    const refused = await patch(b.token, { name: 'Mine' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await server.request('DELETE', `/rooms/${room.id}`, { token: b.token })).status).toBe(403);

    const heard = await commandsOn(server.services.bus);
    const deleted = await server.request('DELETE', `/rooms/${room.id}`, { token: a.token });
    expect(deleted.status).toBe(204);
    await expect.poll(() => heard).toContainEqual({ type: 'close', roomId: room.id });
    const gone = await server.request('GET', `/rooms/${room.id}`, { token: a.token });
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'ROOM_NOT_FOUND', message: 'Room not found' });
    expect((await server.request('DELETE', `/rooms/${room.id}`, { token: a.token })).status).toBe(404);
  });

  it('answers a join with a room token for the media server, the server URL and the room', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const room = await createRoom(a.token);
    const res = await join(b.token, room.id);
    expect(res.status).toBe(200);
    expect(res.body.mediaUrl).toBe(FakeMediaServers.url(serverId));
    expect(res.body.room).toMatchObject({ id: room.id, name: room.name });

    const key = mediaSecretKey(server.services.config);
    const claims = jwt.verify(res.body.roomToken, key, {
      algorithms: ['HS256'],
      audience: ROOM_TOKEN.audience,
      issuer: ROOM_TOKEN.issuer,
    }) as jwt.JwtPayload;
    expect(claims).toMatchObject({
      sub: b.user.id,
      roomId: room.id,
      permissions: { admin: false, moderator: false },
      loudest: FORWARDING.loudestDefault,
      stage: false,
      displayName: b.username,
      avatarUrl: null,
      aud: 'media',
      iss: 'voice-api',
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(ROOM_TOKEN.ttlSeconds);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    // Not a session: the JWT secret does not verify it, and the admin's token says admin.
    expect(() => jwt.verify(res.body.roomToken, server.services.config.jwtSecret)).toThrow();
    const admin = jwt.decode((await join(a.token, room.id)).body.roomToken) as jwt.JwtPayload;
    expect(admin.permissions).toEqual({ admin: true, moderator: false });
    expect(admin.jti).not.toBe(claims.jti);
  });

  it('keeps the voices each member hears at once: 3 unless chosen, 1 to 8, set by the admin only, in the room token', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const key = mediaSecretKey(server.services.config);
    /** The `loudest` of the room token `token`'s holder gets for `roomId` now. */
    const loudestInToken = async (token: string, roomId: string) => {
      const res = await join(token, roomId);
      expect(res.status).toBe(200);
      const claims = jwt.verify(res.body.roomToken, key, {
        algorithms: ['HS256'],
        audience: ROOM_TOKEN.audience,
        issuer: ROOM_TOKEN.issuer,
      }) as unknown as RoomTokenClaims;
      return claims.loudest;
    };
    const shown = async (roomId: string) =>
      (await server.request('GET', `/rooms/${roomId}`, { token: a.token })).body.room.loudest;

    const plain = await createRoom(a.token);
    expect(plain.loudest).toBe(3);
    expect(await loudestInToken(b.token, plain.id)).toBe(3);
    for (const loudest of [FORWARDING.loudestMin, FORWARDING.loudestMax]) {
      const room = await createRoom(a.token, { loudest });
      expect(room.loudest).toBe(loudest);
      expect(await shown(room.id)).toBe(loudest);
      expect(await loudestInToken(b.token, room.id)).toBe(loudest);
    }

    const patch = (token: string, body: unknown) =>
      server.request('PATCH', `/rooms/${plain.id}`, { token, body });
    for (const loudest of [8, 1]) {
      const changed = await patch(a.token, { loudest });
      expect(changed.status).toBe(200);
      expect(changed.body.room.loudest).toBe(loudest);
      // The next room token says the new number.
      expect(await loudestInToken(b.token, plain.id)).toBe(loudest);
      expect(await loudestInToken(a.token, plain.id)).toBe(loudest);
    }
    // Changing something else leaves it be.
    expect((await patch(a.token, { name: 'Renamed', maxParticipants: 10 })).body.room.loudest).toBe(1);

    // Neither a member nor a moderator may change it.
    const refused = await patch(b.token, { loudest: 5 });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    const named = await server.request('PUT', `/rooms/${plain.id}/moderators/${b.user.id}`, {
      token: a.token,
    });
    expect(named.status).toBe(200);
    expect((await patch(b.token, { loudest: 5 })).body.error.code).toBe('FORBIDDEN');
    expect(await shown(plain.id)).toBe(1);

    // The database holds the bounds too.
    await expect(server.services.db('rooms').where({ id: plain.id }).update({ loudest: 9 })).rejects.toThrow(
      /rooms_loudest/,
    );
  });

  it('makes a room a stage only when it is created: shown, listed and in the room token, with up to 5000 seats', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const key = mediaSecretKey(server.services.config);
    /** The claims of the room token `token`'s holder gets for `roomId` now. */
    const claimsOf = async (token: string, roomId: string) => {
      const res = await join(token, roomId);
      expect(res.status).toBe(200);
      return jwt.verify(res.body.roomToken, key, {
        algorithms: ['HS256'],
        audience: ROOM_TOKEN.audience,
        issuer: ROOM_TOKEN.issuer,
      }) as unknown as RoomTokenClaims;
    };
    const shown = async (roomId: string) =>
      (await server.request('GET', `/rooms/${roomId}`, { token: a.token })).body.room;
    const listed = async (name: string) =>
      (
        await server.request('GET', `/rooms?query=${encodeURIComponent(name)}`, { token: b.token })
      ).body.rooms.map((room: { id: string; stage: boolean }) => ({ id: room.id, stage: room.stage }));

    const plain = await createRoom(a.token);
    expect(plain.stage).toBe(false);
    expect(await listed(plain.name)).toEqual([{ id: plain.id, stage: false }]);
    expect((await claimsOf(b.token, plain.id)).stage).toBe(false);
    expect((await createRoom(a.token, { stage: false })).stage).toBe(false);

    const stage = await createRoom(a.token, { stage: true });
    expect(stage).toMatchObject({ stage: true, maxParticipants: 25, loudest: FORWARDING.loudestDefault });
    expect((await shown(stage.id)).stage).toBe(true);
    expect(await listed(stage.name)).toEqual([{ id: stage.id, stage: true }]);
    expect(await claimsOf(b.token, stage.id)).toMatchObject({ stage: true, permissions: { admin: false } });
    expect(await claimsOf(a.token, stage.id)).toMatchObject({ stage: true, permissions: { admin: true } });

    // A stage seats up to 5000, any other room up to 1000.
    const big = await createRoom(a.token, { stage: true, maxParticipants: 5000 });
    expect(big).toMatchObject({ stage: true, maxParticipants: 5000 });
    expect((await shown(big.id)).maxParticipants).toBe(5000);
    expect((await createRoom(a.token, { maxParticipants: 1000 })).maxParticipants).toBe(1000);
    const before = await server.services.db('rooms').where({ admin_id: a.user.id }).count();
    for (const [body, message] of [
      [{ maxParticipants: 5000 }, 'maxParticipants: At most 1000'],
      [{ stage: false, maxParticipants: 1001 }, 'maxParticipants: At most 1000'],
      [{ stage: true, maxParticipants: 5001 }, 'maxParticipants: At most 5000'],
    ] as const) {
      const refused = await server.request('POST', '/rooms', {
        token: a.token,
        body: { name: 'Too many', type: 'public', ...body },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toEqual({ code: 'VALIDATION', field: 'maxParticipants', message });
    }
    expect(await server.services.db('rooms').where({ admin_id: a.user.id }).count()).toEqual(before);

    // Changed, a stage keeps its 5000 and any other room its 1000.
    const patch = (roomId: string, body: unknown) =>
      server.request('PATCH', `/rooms/${roomId}`, { token: a.token, body });
    expect((await patch(stage.id, { maxParticipants: 5000 })).body.room).toMatchObject({
      stage: true,
      maxParticipants: 5000,
    });
    for (const [roomId, maxParticipants, message] of [
      [stage.id, 5001, 'maxParticipants: At most 5000'],
      [plain.id, 1001, 'maxParticipants: At most 1000'],
      [plain.id, 5000, 'maxParticipants: At most 1000'],
    ] as const) {
      const refused = await patch(roomId, { name: 'Never renamed', maxParticipants });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toEqual({ code: 'VALIDATION', field: 'maxParticipants', message });
    }
    expect(await shown(stage.id)).toMatchObject({ name: stage.name, maxParticipants: 5000 });
    expect(await shown(plain.id)).toMatchObject({ name: plain.name, maxParticipants: 25 });
    expect((await patch(plain.id, { maxParticipants: 1000 })).body.room.maxParticipants).toBe(1000);

    // Chosen once: a change naming it, even to what it is, is refused and changes nothing.
    for (const [roomId, body] of [
      [stage.id, { stage: false }],
      [stage.id, { stage: true }],
      [plain.id, { stage: true }],
      [plain.id, { name: 'Never renamed', stage: false }],
    ] as const) {
      const refused = await patch(roomId, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toEqual({
        code: 'VALIDATION',
        field: 'stage',
        message: "stage: A room's stage mode is chosen when it is created",
      });
    }
    expect(await shown(stage.id)).toMatchObject({ name: stage.name, stage: true });
    expect(await shown(plain.id)).toMatchObject({ name: plain.name, stage: false });
    expect((await claimsOf(b.token, stage.id)).stage).toBe(true);
    expect((await claimsOf(b.token, plain.id)).stage).toBe(false);
    // Other changes leave it be.
    expect((await patch(stage.id, { name: 'Renamed stage', locked: false })).body.room).toMatchObject({
      name: 'Renamed stage',
      stage: true,
    });
  });

  it('checks room passwords, locks and capacity, with the admin let through lock and password', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const c = await signUp(server);
    const room = await createRoom(a.token, { password: 'letmein', maxParticipants: 2 });

    const none = await join(b.token, room.id);
    expect(none.status).toBe(403);
    expect(none.body.error).toMatchObject({
      code: 'ROOM_PASSWORD_REQUIRED',
      message: 'Room password required',
    });
    const wrong = await join(b.token, room.id, { password: 'letmeout' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('ROOM_PASSWORD_WRONG');
    expect((await join(b.token, room.id, { password: 'letmein' })).status).toBe(200);
    expect((await join(a.token, room.id)).status).toBe(200);

    await server.request('PATCH', `/rooms/${room.id}`, { token: a.token, body: { locked: true } });
    const locked = await join(c.token, room.id, { password: 'letmein' });
    expect(locked.status).toBe(403);
    expect(locked.body.error).toMatchObject({ code: 'ROOM_LOCKED', message: 'Room is locked' });
    expect((await join(a.token, room.id)).status).toBe(200);
    await server.request('PATCH', `/rooms/${room.id}`, { token: a.token, body: { locked: false } });

    // The media server says a and b are in: the room shows them and is full for c.
    await media.members(serverId, room.id, [a.user.id, b.user.id]);
    await expect
      .poll(
        async () =>
          (await server.request('GET', `/rooms/${room.id}`, { token: c.token })).body.room.memberCount,
      )
      .toBe(2);
    const seen = (await server.request('GET', `/rooms/${room.id}`, { token: c.token })).body.room;
    expect(seen.participants.map((p: { id: string }) => p.id).sort()).toEqual([a.user.id, b.user.id].sort());
    expect(seen.participants[0]).toEqual({
      id: expect.any(String),
      username: expect.any(String),
      display_name: null,
      avatar_url: null,
    });
    const full = await join(c.token, room.id, { password: 'letmein' });
    expect(full.status).toBe(409);
    expect(full.body.error).toMatchObject({ code: 'ROOM_FULL', message: 'Room is full' });
    // Someone already inside (a reconnect) gets in again.
    expect((await join(b.token, room.id, { password: 'letmein' })).status).toBe(200);
    // b leaves: there is room again.
    await media.members(serverId, room.id, [a.user.id]);
    await expect.poll(async () => (await join(c.token, room.id, { password: 'letmein' })).status).toBe(200);
    // The room closes on its media server: nobody is in it.
    await media.members(serverId, room.id, []);
    await expect
      .poll(
        async () =>
          (await server.request('GET', `/rooms/${room.id}`, { token: c.token })).body.room.memberCount,
      )
      .toBe(0);
  });

  it('invites friends only, at least one, to every tab of the invitee; accept joins, decline drops', async () => {
    const [a, b] = await signUpFriends(server);
    const stranger = await signUp(server);
    const room = await createRoom(a.token, { type: 'private', password: 'private-pass' });
    const invite = (userIds: unknown) =>
      server.request('POST', `/rooms/${room.id}/invitations`, { token: a.token, body: { userIds } });

    const empty = await invite([]);
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({
      code: 'INVITE_EMPTY',
      message: 'Please select at least one friend to invite',
    });
    const notFriend = await invite([b.user.id, stranger.user.id]);
    expect(notFriend.status).toBe(404);
    expect(notFriend.body.error.code).toBe('NOT_FRIENDS');
    expect((await server.request('GET', '/rooms/invitations', { token: b.token })).body.invitations).toEqual(
      [],
    );

    const tabs = [await connect(b.token), await connect(b.token)];
    const sent = await invite([b.user.id, b.user.id.toUpperCase()]);
    expect(sent.status).toBe(201);
    const invitation = {
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      room_id: room.id,
      room_name: room.name,
      inviter_username: a.username,
      inviter_display_name: null,
      created_at: expect.any(String),
    };
    expect(sent.body.invitations).toEqual([invitation]);
    for (const tab of tabs) {
      expect((await tab.waitFor('room-invitation-received')).data).toEqual({
        invitation: sent.body.invitations[0],
      });
    }
    // Inviting again renews the one pending invitation.
    expect((await invite([b.user.id])).body.invitations[0].id).toBe(sent.body.invitations[0].id);
    const mine = await server.request('GET', '/rooms/invitations', { token: b.token });
    expect(mine.body.invitations).toEqual([invitation]);
    const id = mine.body.invitations[0].id as string;

    // Only the invitee may use it; accepting joins without the password and uses it up.
    expect((await server.request('POST', `/rooms/invitations/${id}/accept`, { token: a.token })).status).toBe(
      404,
    );
    const accepted = await server.request('POST', `/rooms/invitations/${id}/accept`, { token: b.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ mediaUrl: FakeMediaServers.url(serverId), room: { id: room.id } });
    expect(typeof accepted.body.roomToken).toBe('string');
    expect((await server.request('GET', '/rooms/invitations', { token: b.token })).body.invitations).toEqual(
      [],
    );
    // Every tab of the invitee lets it go.
    for (const tab of tabs) {
      expect((await tab.waitFor('room-invitation-removed')).data).toEqual({
        invitationId: id,
        roomId: room.id,
      });
    }
    expect((await server.request('POST', `/rooms/invitations/${id}/accept`, { token: b.token })).status).toBe(
      404,
    );

    // Declining drops it; a second decline finds nothing.
    const again = await invite([b.user.id]);
    const againId = again.body.invitations[0].id as string;
    expect(
      (await server.request('POST', `/rooms/invitations/${againId}/decline`, { token: a.token })).status,
    ).toBe(404);
    const declined = await server.request('POST', `/rooms/invitations/${againId}/decline`, {
      token: b.token,
    });
    expect(declined.status).toBe(204);
    expect((await server.request('GET', '/rooms/invitations', { token: b.token })).body.invitations).toEqual(
      [],
    );
    for (const tab of tabs) {
      await tab.waitFor('room-invitation-removed', (data) => data.invitationId === againId);
    }
    expect(
      (await server.request('POST', `/rooms/invitations/${againId}/decline`, { token: b.token })).status,
    ).toBe(404);
  });

  it('tells every invitee when the room of their pending invitation is deleted', async () => {
    const [a, b] = await signUpFriends(server);
    const c = await signUp(server);
    await server.request('POST', '/users/friend-request', { token: a.token, body: { userId: c.user.id } });
    await server.request('POST', '/users/friend-request/accept', {
      token: c.token,
      body: { userId: a.user.id },
    });
    const room = await createRoom(a.token, { type: 'private' });
    const bTab = await connect(b.token);
    const cTab = await connect(c.token);
    const sent = await server.request('POST', `/rooms/${room.id}/invitations`, {
      token: a.token,
      body: { userIds: [b.user.id, c.user.id] },
    });
    expect(sent.status).toBe(201);
    const pending = (await server.request('GET', '/rooms/invitations', { token: b.token })).body.invitations;
    expect(pending).toHaveLength(1);

    expect((await server.request('DELETE', `/rooms/${room.id}`, { token: a.token })).status).toBe(204);
    const removed = [
      (await bTab.waitFor('room-invitation-removed')).data,
      (await cTab.waitFor('room-invitation-removed')).data,
    ];
    expect(removed.map((data) => data.roomId)).toEqual([room.id, room.id]);
    expect(new Set(removed.map((data) => data.invitationId))).toEqual(
      new Set((sent.body.invitations as { id: string }[]).map((invitation) => invitation.id)),
    );
    expect((await server.request('GET', '/rooms/invitations', { token: b.token })).body.invitations).toEqual(
      [],
    );
    const accept = await server.request('POST', `/rooms/invitations/${pending[0].id}/accept`, {
      token: b.token,
    });
    expect(accept.status).toBe(404);
  });

  it('joins over the app socket with `join-room`, with the same checks and answer', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const room = await createRoom(a.token, { password: 'sock-pass' });
    const socket = await connect(b.token);
    await expect(socket.request('join-room', { roomId: room.id })).rejects.toThrow(/ROOM_PASSWORD_REQUIRED/);
    await expect(socket.request('join-room', { roomId: room.id, password: 'nope' })).rejects.toThrow(
      /ROOM_PASSWORD_WRONG/,
    );
    await expect(socket.request('join-room', { roomId: randomUUID() })).rejects.toThrow(/ROOM_NOT_FOUND/);
    const reply = (await socket.request('join-room', {
      roomId: room.id.toUpperCase(),
      password: 'sock-pass',
    })) as {
      roomToken: string;
      mediaUrl: string;
      room: { id: string };
    };
    expect(reply.mediaUrl).toBe(FakeMediaServers.url(serverId));
    expect(reply.room.id).toBe(room.id);
    expect((jwt.decode(reply.roomToken) as jwt.JwtPayload).sub).toBe(b.user.id);
  });

  it('says the spec’s errors for a long name, and fails to create a room for a missing admin', async () => {
    const a = await signUp(server);
    const long = await server.request('POST', '/rooms', {
      token: a.token,
      body: { name: 'x'.repeat(101), type: 'public' },
    });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({
      code: 'ROOM_NAME_TOO_LONG',
      message: 'Room name is too long (max 100 characters)',
      field: 'name',
    });
    expect(
      (
        await server.request('POST', '/rooms', {
          token: a.token,
          body: { name: 'x'.repeat(100), type: 'public' },
        })
      ).status,
    ).toBe(201);
    const room = await createRoom(a.token);
    const patched = await server.request('PATCH', `/rooms/${room.id}`, {
      token: a.token,
      body: { name: 'y'.repeat(101) },
    });
    expect(patched.body.error.code).toBe('ROOM_NAME_TOO_LONG');
    // The database refuses an admin who does not exist (an account removed meanwhile).
    await expect(
      server.services.rooms.create(randomUUID(), {
        name: 'Orphan',
        type: 'public',
        maxParticipants: 5,
        loudest: 3,
        stage: false,
      }),
    ).rejects.toMatchObject({ code: 'ROOM_CREATE_FAILED', status: 500 });
  });

  it('answers 503 MEDIA_UNAVAILABLE while no media server announces itself', async () => {
    const a = await signUp(server);
    const room = await createRoom(a.token);
    await media.leave(serverId);
    try {
      const res = await join(a.token, room.id);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({
        code: 'MEDIA_UNAVAILABLE',
        message: 'Voice rooms are unavailable right now. Please try again later',
      });
    } finally {
      await media.announce(serverId);
    }
    expect((await join(a.token, room.id)).status).toBe(200);
  });
});
