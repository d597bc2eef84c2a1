/**
 * Moderation over REST (issue 19, item 6), against the real API with PostgreSQL, and Redis or
 * memory stores; media servers are stood in for on the bus. The admin names moderators, whose
 * room tokens then say so; someone an admin or moderator removed stays out for a while, unless
 * an admin or moderator invites them again.
 */
import { randomUUID } from 'node:crypto';
import { roomCommandsChannel, roomKicksChannel } from '@voice/bus';
import { ERRORS, ROOM_LIMITS, type RoomCommand, type RoomKick } from '@voice/protocol';
import jwt from 'jsonwebtoken';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, signUp, TestServer, uniqueName } from '../testing/TestServer.ts';
import { FakeMediaServers } from './roomTesting.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

type Person = Awaited<ReturnType<typeof signUp>>;

describe.each([
  ['stores in Redis', REDIS_URL],
  ['stores in memory', ''],
])('moderation, %s', (_name, redisUrl) => {
  let server: TestServer;
  let media: FakeMediaServers;
  const commands: RoomCommand[] = [];

  const createRoom = async (token: string, body: Record<string, unknown> = {}) => {
    const res = await server.request('POST', '/rooms', {
      token,
      body: { name: `Room ${randomUUID().slice(0, 8)}`, type: 'public', ...body },
    });
    expect(res.status).toBe(201);
    return res.body.room as { id: string; name: string };
  };
  const join = (token: string, roomId: string) =>
    server.request('POST', `/rooms/${roomId}/join`, { token, body: {} });
  const moderator = (method: 'PUT' | 'DELETE', token: string, roomId: string, userId: string) =>
    server.request(method, `/rooms/${roomId}/moderators/${userId}`, { token });
  const invite = (token: string, roomId: string, userIds: string[]) =>
    server.request('POST', `/rooms/${roomId}/invitations`, { token, body: { userIds } });
  const befriend = async (x: Person, y: Person) => {
    await server.request('POST', '/users/friend-request', { token: x.token, body: { userId: y.user.id } });
    await server.request('POST', '/users/friend-request/accept', {
      token: y.token,
      body: { userId: x.user.id },
    });
  };
  /** The permissions in the room token of `person`'s join. */
  const permissionsOf = async (person: Person, roomId: string) => {
    const res = await join(person.token, roomId);
    expect(res.status).toBe(200);
    return (jwt.decode(res.body.roomToken) as { permissions: unknown }).permissions;
  };
  /** Says, as the room's media server, that `by` removed `peerId`. */
  const kick = (kick: RoomKick) => server.services.bus.publish(roomKicksChannel, kick);
  /** Polls until `person`'s join of `roomId` answers `status` (bus messages arrive a moment later). */
  const untilJoin = async (person: Person, roomId: string, status: number) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const res = await join(person.token, roomId);
      if (res.status === status || Date.now() > deadline) return res;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    server = await TestServer.start({ REDIS_URL: redisUrl });
    media = new FakeMediaServers(server);
    await media.announce(`m-${randomUUID()}`);
    await server.services.bus.subscribe(roomCommandsChannel, (command) => {
      commands.push(command);
    });
  });
  afterAll(async () => {
    media?.stop();
    await server?.close();
  });

  it('PUT and DELETE /rooms/:id/moderators/:userId name and unname a moderator: stored, in the room, in the token, told to the media server', async () => {
    const admin = await signUp(server);
    const bob = await signUp(server);
    const room = await createRoom(admin.token);
    expect(await permissionsOf(bob, room.id)).toEqual({ admin: false, moderator: false });

    const named = await moderator('PUT', admin.token, room.id, bob.user.id.toUpperCase());
    expect(named.status).toBe(200);
    expect(named.body.room).toMatchObject({ id: room.id, moderators: [bob.user.id] });
    expect(await server.services.db('room_moderators').where({ room_id: room.id })).toMatchObject([
      { user_id: bob.user.id },
    ]);
    // Naming again changes nothing.
    expect((await moderator('PUT', admin.token, room.id, bob.user.id)).body.room.moderators).toEqual([
      bob.user.id,
    ]);
    expect(
      (await server.request('GET', `/rooms/${room.id}`, { token: bob.token })).body.room.moderators,
    ).toEqual([bob.user.id]);
    expect(await permissionsOf(bob, room.id)).toEqual({ admin: false, moderator: true });
    expect(await permissionsOf(admin, room.id)).toEqual({ admin: true, moderator: false });
    expect(commands).toContainEqual({
      type: 'moderator',
      roomId: room.id,
      peerId: bob.user.id,
      moderator: true,
    });

    const unnamed = await moderator('DELETE', admin.token, room.id, bob.user.id);
    expect(unnamed.status).toBe(200);
    expect(unnamed.body.room.moderators).toEqual([]);
    expect(await permissionsOf(bob, room.id)).toEqual({ admin: false, moderator: false });
    expect(commands).toContainEqual({
      type: 'moderator',
      roomId: room.id,
      peerId: bob.user.id,
      moderator: false,
    });
  });

  it('naming moderators refuses bad ids, non-admins, other rooms, unknown people and the admin, and the server goes on', async () => {
    const admin = await signUp(server);
    const bob = await signUp(server);
    const carol = await signUp(server);
    const room = await createRoom(admin.token);
    const hidden = await createRoom(carol.token, { type: 'private' });
    await moderator('PUT', admin.token, room.id, bob.user.id);

    const cases: Array<
      [
        what: string,
        reply: Promise<Reply<{ error: { code: string; message: string } }>>,
        status: number,
        code: string,
      ]
    > = [
      ['a user id that is no id', moderator('PUT', admin.token, room.id, 'x'), 400, 'VALIDATION'],
      ['a room id that is no id', moderator('PUT', admin.token, 'nope', bob.user.id), 400, 'VALIDATION'],
      ['a long junk id', moderator('PUT', admin.token, room.id, 'y'.repeat(5000)), 400, 'VALIDATION'],
      ['nobody', moderator('PUT', admin.token, room.id, randomUUID()), 404, 'USER_NOT_FOUND'],
      [
        'the admin themself',
        moderator('PUT', admin.token, room.id, admin.user.id),
        400,
        'MODERATOR_IS_ADMIN',
      ],
      ['a member naming', moderator('PUT', carol.token, room.id, carol.user.id), 403, 'FORBIDDEN'],
      ['a moderator naming', moderator('PUT', bob.token, room.id, carol.user.id), 403, 'FORBIDDEN'],
      ['a moderator unnaming', moderator('DELETE', bob.token, room.id, bob.user.id), 403, 'FORBIDDEN'],
      ['a room one cannot see', moderator('PUT', admin.token, hidden.id, bob.user.id), 404, 'ROOM_NOT_FOUND'],
      ['a room that is not', moderator('PUT', admin.token, randomUUID(), bob.user.id), 404, 'ROOM_NOT_FOUND'],
      [
        'without a session',
        server.request('PUT', `/rooms/${room.id}/moderators/${bob.user.id}`),
        401,
        'UNAUTHORIZED',
      ],
    ];
    for (const [what, reply, status, code] of cases) {
      const res = await reply;
      expect(res.status, what).toBe(status);
      expect(res.body.error.code, what).toBe(code);
      // A validation error names what was wrong; the others say their own wording.
      if (code !== 'VALIDATION') {
        expect(res.body.error.message, what).toBe(ERRORS[code as keyof typeof ERRORS].message);
      }
    }
    expect(
      (await server.request('GET', `/rooms/${room.id}`, { token: admin.token })).body.room.moderators,
    ).toEqual([bob.user.id]);
    expect(await server.services.db('room_moderators').where({ room_id: hidden.id })).toEqual([]);
  });

  it(`a room takes at most ${ROOM_LIMITS.moderatorsMax} moderators`, async () => {
    const admin = await signUp(server);
    const room = await createRoom(admin.token);
    // Accounts written straight to the database stand in: the limit is counted there, whoever they are.
    const others = Array.from({ length: ROOM_LIMITS.moderatorsMax + 1 }, () => {
      const username = uniqueName('m');
      return { id: randomUUID(), username, email: `${username}@example.test`, password_hash: 'x' };
    });
    await server.services.db('users').insert(others);
    await server.services
      .db('room_moderators')
      .insert(
        others.slice(0, ROOM_LIMITS.moderatorsMax).map(({ id }) => ({ room_id: room.id, user_id: id })),
      );
    const refused = await moderator('PUT', admin.token, room.id, others[ROOM_LIMITS.moderatorsMax]?.id ?? '');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('TOO_MANY_MODERATORS');
  });

  it('someone removed by the admin or a moderator cannot join for a while (KICKED_RECENTLY) unless an admin or moderator invites them again', async () => {
    const admin = await signUp(server);
    const bob = await signUp(server);
    const mod = await signUp(server);
    const carol = await signUp(server);
    for (const friend of [bob, mod, carol]) await befriend(admin, friend);
    await befriend(mod, bob);
    await befriend(carol, bob);
    const room = await createRoom(admin.token);
    await moderator('PUT', admin.token, room.id, mod.user.id);
    expect((await join(bob.token, room.id)).status).toBe(200);
    // An invitation from before the removal does not let him back.
    const earlier = await invite(carol.token, room.id, [bob.user.id]);

    await kick({ roomId: room.id, peerId: bob.user.id, by: admin.user.id });
    const refused = await untilJoin(bob, room.id, 403);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({ code: 'KICKED_RECENTLY', message: ERRORS.KICKED_RECENTLY.message });
    const accepted = await server.request(
      'POST',
      `/rooms/invitations/${earlier.body.invitations[0].id}/accept`,
      {
        token: bob.token,
      },
    );
    expect(accepted.body.error?.code).toBe('KICKED_RECENTLY');
    // Nor does a member's invitation; the admin's does.
    await invite(carol.token, room.id, [bob.user.id]);
    expect((await join(bob.token, room.id)).body.error?.code).toBe('KICKED_RECENTLY');
    expect((await invite(admin.token, room.id, [bob.user.id])).status).toBe(201);
    expect((await join(bob.token, room.id)).status).toBe(200);

    // A moderator's removal counts, and their invitation lifts it.
    await kick({ roomId: room.id, peerId: bob.user.id, by: mod.user.id });
    expect((await untilJoin(bob, room.id, 403)).body.error?.code).toBe('KICKED_RECENTLY');
    // Banned from this room only.
    const other = await createRoom(admin.token);
    expect((await join(bob.token, other.id)).status).toBe(200);
    await invite(mod.token, room.id, [bob.user.id]);
    expect((await join(bob.token, room.id)).status).toBe(200);

    if (redisUrl) {
      await kick({ roomId: room.id, peerId: bob.user.id, by: admin.user.id });
      await untilJoin(bob, room.id, 403);
      const redis = await createClient({ url: redisUrl }).connect();
      const ttl = await redis.pTTL(`${server.services.config.redisPrefix}room-ban:${room.id}:${bob.user.id}`);
      redis.destroy();
      expect(ttl).toBeGreaterThan((ROOM_LIMITS.kickBanSeconds - 10) * 1000);
      expect(ttl).toBeLessThanOrEqual(ROOM_LIMITS.kickBanSeconds * 1000);
    }
  });

  it('a removal said by someone without the right, or of the admin, keeps nobody out', async () => {
    const admin = await signUp(server);
    const bob = await signUp(server);
    const carol = await signUp(server);
    const room = await createRoom(admin.token);
    const marker = await createRoom(admin.token);
    await kick({ roomId: room.id, peerId: bob.user.id, by: carol.user.id });
    await kick({ roomId: room.id, peerId: admin.user.id, by: admin.user.id });
    await kick({ roomId: randomUUID(), peerId: bob.user.id, by: admin.user.id });
    await kick({ roomId: 'not-a-room', peerId: 'x', by: 'y' });
    // A real removal sent after them, so by the time it holds the others were handled.
    await kick({ roomId: marker.id, peerId: bob.user.id, by: admin.user.id });
    expect((await untilJoin(bob, marker.id, 403)).status).toBe(403);
    expect((await join(bob.token, room.id)).status).toBe(200);
    expect((await join(admin.token, room.id)).status).toBe(200);
  });
});
