/**
 * Hostile input to every room route and to `join-room`: refused with the right status and
 * code, and the server keeps serving.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawSocket } from '../testing/RawSocket.ts';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { FakeMediaServers } from './roomTesting.ts';

type Case = [what: string, method: string, path: () => string, body: unknown, status: number, code: string];

/** `loudest` values refused, with the message that says why (FORWARDING's 1 to 8, whole). */
const BAD_LOUDEST: ReadonlyArray<readonly [value: unknown, message: string]> = [
  [0, 'loudest: At least 1'],
  [9, 'loudest: At most 8'],
  [2.5, 'loudest: Must be a whole number'],
  ['3', 'loudest: Must be a number'],
  [null, 'loudest: Must be a number'],
  [-1, 'loudest: At least 1'],
];

/** `stage` values refused: it is true or false. */
const BAD_STAGE: ReadonlyArray<unknown> = ['yes', 'true', 1, 0, null, {}, []];

/** Capacities refused on creation, with why: a stage seats up to 5000, any other room 1000. */
const BAD_CAPACITY: ReadonlyArray<readonly [body: Record<string, unknown>, message: string]> = [
  [{ maxParticipants: 1001 }, 'maxParticipants: At most 1000'],
  [{ maxParticipants: 5000 }, 'maxParticipants: At most 1000'],
  [{ stage: false, maxParticipants: 5000 }, 'maxParticipants: At most 1000'],
  [{ stage: true, maxParticipants: 5001 }, 'maxParticipants: At most 5000'],
  [{ stage: true, maxParticipants: 1e9 }, 'maxParticipants: At most 5000'],
  [{ stage: true, maxParticipants: 1 }, 'maxParticipants: At least 2'],
  [{ stage: true, maxParticipants: 2.5 }, 'maxParticipants: Must be a whole number'],
  [{ stage: true, maxParticipants: '5000' }, 'maxParticipants: Must be a number'],
  // A stage that is not true or false says so, whatever the capacity.
  [{ stage: 'yes', maxParticipants: 5000 }, 'stage: Must be true or false'],
];

describe('bad input to rooms', () => {
  let server: TestServer;
  let media: FakeMediaServers;
  let token: string;
  let userId: string;
  let roomId: string;

  beforeAll(async () => {
    server = await TestServer.start();
    media = new FakeMediaServers(server);
    await media.announce(`m-${randomUUID()}`);
    ({
      token,
      user: { id: userId },
    } = await signUp(server));
    roomId = (await server.request('POST', '/rooms', { token, body: { name: 'Target', type: 'public' } }))
      .body.room.id;
  });
  afterAll(async () => {
    media?.stop();
    await server?.close();
  });

  const cases: Case[] = [
    ['create: no body', 'POST', () => '/rooms', undefined, 400, 'VALIDATION'],
    ['create: name a number', 'POST', () => '/rooms', { name: 5, type: 'public' }, 400, 'VALIDATION'],
    ['create: blank name', 'POST', () => '/rooms', { name: '   ', type: 'public' }, 400, 'VALIDATION'],
    [
      'create: huge name',
      'POST',
      () => '/rooms',
      { name: 'n'.repeat(50_000), type: 'public' },
      400,
      'ROOM_NAME_TOO_LONG',
    ],
    ['create: NUL in name', 'POST', () => '/rooms', { name: 'a\u0000b', type: 'public' }, 400, 'VALIDATION'],
    ['create: unknown type', 'POST', () => '/rooms', { name: 'x', type: 'secret' }, 400, 'VALIDATION'],
    [
      'create: unknown field',
      'POST',
      () => '/rooms',
      { name: 'x', type: 'public', admin_id: randomUUID() },
      400,
      'VALIDATION',
    ],
    [
      'create: short password',
      'POST',
      () => '/rooms',
      { name: 'x', type: 'public', password: 'abc' },
      400,
      'VALIDATION',
    ],
    [
      'create: password an object',
      'POST',
      () => '/rooms',
      { name: 'x', type: 'public', password: {} },
      400,
      'VALIDATION',
    ],
    [
      'create: capacity 1',
      'POST',
      () => '/rooms',
      { name: 'x', type: 'public', maxParticipants: 1 },
      400,
      'VALIDATION',
    ],
    [
      'create: capacity 1e9',
      'POST',
      () => '/rooms',
      { name: 'x', type: 'public', maxParticipants: 1e9 },
      400,
      'VALIDATION',
    ],
    [
      'create: capacity 2.5',
      'POST',
      () => '/rooms',
      { name: 'x', type: 'public', maxParticipants: 2.5 },
      400,
      'VALIDATION',
    ],
    [
      'create: capacity a string',
      'POST',
      () => '/rooms',
      { name: 'x', type: 'public', maxParticipants: '5' },
      400,
      'VALIDATION',
    ],
    [
      'create: huge description',
      'POST',
      () => '/rooms',
      { name: 'x', type: 'public', description: 'd'.repeat(501) },
      400,
      'VALIDATION',
    ],
    ...BAD_LOUDEST.map(
      ([loudest]): Case => [
        `create: loudest ${JSON.stringify(loudest)}`,
        'POST',
        () => '/rooms',
        { name: 'x', type: 'public', loudest },
        400,
        'VALIDATION',
      ],
    ),
    ...BAD_STAGE.map(
      (stage): Case => [
        `create: stage ${JSON.stringify(stage)}`,
        'POST',
        () => '/rooms',
        { name: 'x', type: 'public', stage },
        400,
        'VALIDATION',
      ],
    ),
    ...BAD_CAPACITY.map(
      ([body]): Case => [
        `create: ${JSON.stringify(body)}`,
        'POST',
        () => '/rooms',
        { name: 'x', type: 'public', ...body },
        400,
        'VALIDATION',
      ],
    ),
    ['create: an array', 'POST', () => '/rooms', [{ name: 'x', type: 'public' }], 400, 'VALIDATION'],
    ['list: query too long', 'GET', () => `/rooms?query=${'q'.repeat(101)}`, undefined, 400, 'VALIDATION'],
    ['list: query twice', 'GET', () => '/rooms?query=a&query=b', undefined, 400, 'VALIDATION'],
    ['list: unknown parameter', 'GET', () => '/rooms?admin=me', undefined, 400, 'VALIDATION'],
    ['list: NUL in query', 'GET', () => '/rooms?query=a%00b', undefined, 400, 'VALIDATION'],
    ['get: not an id', 'GET', () => '/rooms/not-a-room', undefined, 400, 'VALIDATION'],
    [
      'get: SQL in the id',
      'GET',
      () => `/rooms/${encodeURIComponent("1' OR '1'='1")}`,
      undefined,
      400,
      'VALIDATION',
    ],
    ['get: unknown room', 'GET', () => `/rooms/${randomUUID()}`, undefined, 404, 'ROOM_NOT_FOUND'],
    ['patch: locked a string', 'PATCH', () => `/rooms/${roomId}`, { locked: 'yes' }, 400, 'VALIDATION'],
    ['patch: type null', 'PATCH', () => `/rooms/${roomId}`, { type: null }, 400, 'VALIDATION'],
    [
      'patch: unknown field',
      'PATCH',
      () => `/rooms/${roomId}`,
      { admin_id: randomUUID() },
      400,
      'VALIDATION',
    ],
    [
      'patch: huge password',
      'PATCH',
      () => `/rooms/${roomId}`,
      { password: 'p'.repeat(129) },
      400,
      'VALIDATION',
    ],
    ...BAD_LOUDEST.map(
      ([loudest]): Case => [
        `patch: loudest ${JSON.stringify(loudest)}`,
        'PATCH',
        () => `/rooms/${roomId}`,
        { loudest },
        400,
        'VALIDATION',
      ],
    ),
    ...[true, false, ...BAD_STAGE].map(
      (stage): Case => [
        `patch: stage ${JSON.stringify(stage)}`,
        'PATCH',
        () => `/rooms/${roomId}`,
        { stage },
        400,
        'VALIDATION',
      ],
    ),
    [
      'patch: capacity over 1000 (not a stage)',
      'PATCH',
      () => `/rooms/${roomId}`,
      { maxParticipants: 1001 },
      400,
      'VALIDATION',
    ],
    ['patch: not an id', 'PATCH', () => '/rooms/123', { name: 'x' }, 400, 'VALIDATION'],
    ['delete: not an id', 'DELETE', () => '/rooms/%00', undefined, 400, 'VALIDATION'],
    ['join: password a number', 'POST', () => `/rooms/${roomId}/join`, { password: 1234 }, 400, 'VALIDATION'],
    [
      'join: huge password',
      'POST',
      () => `/rooms/${roomId}/join`,
      { password: 'p'.repeat(100_000) },
      400,
      'VALIDATION',
    ],
    [
      'join: NUL in password',
      'POST',
      () => `/rooms/${roomId}/join`,
      { password: 'a\u0000' },
      400,
      'VALIDATION',
    ],
    ['join: unknown field', 'POST', () => `/rooms/${roomId}/join`, { admin: true }, 400, 'VALIDATION'],
    ['join: unknown room', 'POST', () => `/rooms/${randomUUID()}/join`, {}, 404, 'ROOM_NOT_FOUND'],
    ...(
      [
        ['a number', 5],
        ['an array', ['ws://a.media.test/rtc']],
        ['not a URL', 'media server A'],
        ['an http URL', 'http://127.0.0.1:4443/health'],
        ['a javascript: URL', 'javascript:alert(1)'],
        ['huge', `ws://a.media.test/${'a'.repeat(5000)}`],
        ['with NUL', 'ws://a.media.test/rtc\u0000'],
      ] as const
    ).map(
      ([what, unreachable]): Case => [
        `join: unreachable ${what}`,
        'POST',
        () => `/rooms/${roomId}/join`,
        { unreachable },
        400,
        'VALIDATION',
      ],
    ),
    ['invite: no list', 'POST', () => `/rooms/${roomId}/invitations`, {}, 400, 'VALIDATION'],
    [
      'invite: ids not ids',
      'POST',
      () => `/rooms/${roomId}/invitations`,
      { userIds: ['me'] },
      400,
      'VALIDATION',
    ],
    [
      'invite: a string',
      'POST',
      () => `/rooms/${roomId}/invitations`,
      { userIds: randomUUID() },
      400,
      'VALIDATION',
    ],
    [
      'invite: too many',
      'POST',
      () => `/rooms/${roomId}/invitations`,
      { userIds: Array.from({ length: 51 }, () => randomUUID()) },
      400,
      'VALIDATION',
    ],
    [
      'invite: unknown room',
      'POST',
      () => `/rooms/${randomUUID()}/invitations`,
      { userIds: [randomUUID()] },
      404,
      'ROOM_NOT_FOUND',
    ],
    ['accept: not an id', 'POST', () => '/rooms/invitations/x/accept', undefined, 400, 'VALIDATION'],
    [
      'accept: unknown',
      'POST',
      () => `/rooms/invitations/${randomUUID()}/accept`,
      undefined,
      404,
      'NOT_FOUND',
    ],
    [
      'decline: unknown',
      'POST',
      () => `/rooms/invitations/${randomUUID()}/decline`,
      undefined,
      404,
      'NOT_FOUND',
    ],
  ];

  it.each(cases)('%s → %i %s', async (_what, method, path, body, status, code) => {
    const res = await server.request(method, path(), { token, body });
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect((await server.request('GET', `/rooms/${roomId}`, { token })).status).toBe(200);
  });

  it.each(BAD_LOUDEST)(
    'refuses loudest %j with "%s", creating and changing nothing',
    async (loudest, message) => {
      const rooms = async () =>
        Number((await server.services.db('rooms').where({ admin_id: userId }).count())[0]?.count);
      const before = await rooms();
      const created = await server.request('POST', '/rooms', {
        token,
        body: { name: 'Never made', type: 'public', loudest },
      });
      expect(created.status).toBe(400);
      expect(created.body.error).toEqual({ code: 'VALIDATION', field: 'loudest', message });
      expect(await rooms()).toBe(before);

      const changed = await server.request('PATCH', `/rooms/${roomId}`, {
        token,
        body: { name: 'Never renamed', loudest },
      });
      expect(changed.status).toBe(400);
      expect(changed.body.error).toEqual({ code: 'VALIDATION', field: 'loudest', message });
      expect((await server.request('GET', `/rooms/${roomId}`, { token })).body.room).toMatchObject({
        name: 'Target',
        loudest: 3,
      });
    },
  );

  it.each([true, false, ...BAD_STAGE])(
    'refuses stage %j unless true or false on creation, and always on a change, creating and changing nothing',
    async (stage) => {
      const rooms = async () =>
        Number((await server.services.db('rooms').where({ admin_id: userId }).count())[0]?.count);
      const before = await rooms();
      const created = await server.request('POST', '/rooms', {
        token,
        body: { name: 'Never made', type: 'public', stage },
      });
      if (typeof stage === 'boolean') {
        expect(created.status).toBe(201);
        expect(created.body.room.stage).toBe(stage);
        await server.request('DELETE', `/rooms/${created.body.room.id}`, { token });
      } else {
        expect(created.status).toBe(400);
        expect(created.body.error).toEqual({
          code: 'VALIDATION',
          field: 'stage',
          message: 'stage: Must be true or false',
        });
      }
      expect(await rooms()).toBe(before);

      const changed = await server.request('PATCH', `/rooms/${roomId}`, {
        token,
        body: { name: 'Never renamed', stage },
      });
      expect(changed.status).toBe(400);
      expect(changed.body.error).toEqual({
        code: 'VALIDATION',
        field: 'stage',
        message: "stage: A room's stage mode is chosen when it is created",
      });
      expect((await server.request('GET', `/rooms/${roomId}`, { token })).body.room).toMatchObject({
        name: 'Target',
        stage: false,
      });
    },
  );

  it.each(BAD_CAPACITY)('refuses creating a room with %j: "%s"', async (body, message) => {
    const rooms = async () =>
      Number((await server.services.db('rooms').where({ admin_id: userId }).count())[0]?.count);
    const before = await rooms();
    const created = await server.request('POST', '/rooms', {
      token,
      body: { name: 'Never made', type: 'public', ...body },
    });
    expect(created.status).toBe(400);
    expect(created.body.error).toEqual({ code: 'VALIDATION', field: message.split(':')[0], message });
    expect(await rooms()).toBe(before);
    expect((await server.request('GET', `/rooms/${roomId}`, { token })).status).toBe(200);
  });

  it("answers a join naming a media server that is not the room's (or no server at all) as any join", async () => {
    const plain = await server.request('POST', `/rooms/${roomId}/join`, { token, body: {} });
    expect(plain.status).toBe(200);
    for (const unreachable of ['ws://nowhere.media.test/rtc', 'wss://203.0.113.9:4443/rtc']) {
      const res = await server.request('POST', `/rooms/${roomId}/join`, { token, body: { unreachable } });
      expect(res.status).toBe(200);
      expect(res.body.mediaUrl).toBe(plain.body.mediaUrl);
    }
  });

  it('refuses malformed JSON and the signed-out', async () => {
    const res = await server.request('POST', '/rooms', { token, raw: '{"name": "x", "type": ' });
    expect(res.body.error.code).toBe('INVALID_JSON');
    for (const [method, path] of [
      ['GET', '/rooms'],
      ['POST', '/rooms'],
      ['GET', '/rooms/invitations'],
      ['POST', `/rooms/${roomId}/join`],
    ] as const) {
      expect((await server.request(method, path, { body: method === 'GET' ? undefined : {} })).status).toBe(
        401,
      );
    }
  });

  it('refuses bad `join-room` requests and keeps the socket serving', async () => {
    const socket = await SocketClient.connect(server.baseUrl, token, { origin: 'http://app.test' });
    try {
      for (const data of [
        undefined,
        null,
        { roomId: 42 },
        { roomId: 'not-a-room' },
        { roomId: `${randomUUID()}\u0000` },
        { roomId, password: 5 },
        { roomId, password: 'p'.repeat(10_000) },
        { roomId, extra: true },
      ]) {
        await expect(socket.request('join-room', data)).rejects.toThrow(/VALIDATION/);
      }
      await expect(socket.request('join-room', { roomId: randomUUID() })).rejects.toThrow(/ROOM_NOT_FOUND/);
      expect(await socket.request('join-room', { roomId })).toMatchObject({ room: { id: roomId } });
    } finally {
      socket.close();
    }
  });

  it('answers `join-room` with data that is not an object (a string, an array) with 400 at once', async () => {
    const raw = await RawSocket.connect(server.baseUrl, token);
    try {
      for (const data of ['room-1', [roomId], 42]) {
        expect(await raw.request('join-room', data)).toMatchObject({ ok: false, errorCode: 400 });
      }
      expect(await raw.request('join-room', { roomId })).toMatchObject({ ok: true });
    } finally {
      raw.close();
    }
  });
});
