/**
 * A room name's 100 characters are counted as a person sees them (issue 17): emoji and
 * letters with combining accents count once, and the database keeps them whole.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';

const FAMILY = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
const E_ACUTE = 'e\u0301';

describe('room names counted in visible characters', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await TestServer.start();
    token = (await signUp(server)).token;
  });
  afterAll(async () => {
    await server?.close();
  });

  const create = (name: string) =>
    server.request('POST', '/rooms', { token, body: { name, type: 'public' } });

  it.each([
    ['20 family emoji', FAMILY.repeat(20)],
    ['100 family emoji', FAMILY.repeat(100)],
    ['60 accented letters written with combining marks', E_ACUTE.repeat(60)],
    ['100 of them with a marker', `${E_ACUTE.repeat(99)}${randomUUID().slice(0, 1)}`],
  ])('creates a room named with %s and keeps the name whole', async (_what, name) => {
    const res = await create(name);
    expect(res.status).toBe(201);
    expect(res.body.room.name).toBe(name);
    const read = await server.request('GET', `/rooms/${res.body.room.id}`, { token });
    expect(read.body.room.name).toBe(name);
  });

  it.each([
    ['101 family emoji', FAMILY.repeat(101)],
    ['101 accented letters', E_ACUTE.repeat(101)],
    ['10 letters under 200 combining marks each', `a${'\u0301'.repeat(200)}`.repeat(10)],
    ['a megabyte-sized name', 'x'.repeat(60_000)],
  ])("refuses %s with the spec's message", async (_what, name) => {
    const res = await create(name);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'ROOM_NAME_TOO_LONG',
      message: 'Room name is too long (max 100 characters)',
      field: 'name',
    });
  });

  it('renames a room to 100 emoji and refuses 101', async () => {
    const room = (await create('Before')).body.room;
    const ok = await server.request('PATCH', `/rooms/${room.id}`, {
      token,
      body: { name: FAMILY.repeat(100) },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.room.name).toBe(FAMILY.repeat(100));
    const tooLong = await server.request('PATCH', `/rooms/${room.id}`, {
      token,
      body: { name: FAMILY.repeat(101) },
    });
    expect(tooLong.body.error.code).toBe('ROOM_NAME_TOO_LONG');
  });
});
