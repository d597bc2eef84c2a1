import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';
import {
  BLUE,
  exifTags,
  hugePng,
  jpegWithGps,
  near,
  pixel,
  RED,
  randomColor,
  sidewaysJpeg,
  solid,
  truncatedJpeg,
} from './testImages.ts';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

const MB = 1024 * 1024;

function form(content: Buffer | string, { name = 'photo.jpg', type = 'image/jpeg', field = 'avatar' } = {}) {
  const body = new FormData();
  const bytes = typeof content === 'string' ? content : new Uint8Array(content);
  body.append(field, new Blob([bytes], { type }), name);
  return body;
}

const tempFiles = () => readdirSync(path.join(server.dataDir, 'tmp'));
const storedFiles = () => readdirSync(path.join(server.dataDir, 'avatars')).sort();
const fileOf = (url: string) => path.join(server.dataDir, 'avatars', path.basename(url));
const me = async (token: string) => (await server.request('GET', '/auth/me', { token })).body.user;
/** GET (or `init`) outside /api; the body is always read, so no response is left half-sent. */
async function served(route: string, init?: RequestInit) {
  const res = await fetch(`${server.baseUrl}${route}`, init);
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** A new account whose avatar is an uploaded photo of `color`. */
async function accountWithAvatar(color = randomColor()) {
  const account = await signUp(server);
  const res = await server.upload('/users/avatar', form(await solid('jpeg', { color })), {
    token: account.token,
  });
  expect(res.status).toBe(200);
  return { ...account, avatarUrl: res.body.avatar_url as string };
}

describe('POST /users/avatar', () => {
  it('stores a 256×256 WebP under a random name, sets avatar_url, and serves it cached forever', async () => {
    const account = await signUp(server);
    const res = await server.upload(
      '/users/avatar',
      form(await solid('png', { width: 800, height: 600 }), {
        name: 'me.png',
        type: 'image/png',
      }),
      { token: account.token },
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['avatar_url']);
    const url: string = res.body.avatar_url;
    expect(url).toMatch(/^\/avatars\/u\/[0-9a-f]{64}\.webp$/);
    expect((await me(account.token)).avatar_url).toBe(url);

    const file = readFileSync(fileOf(url));
    expect(await sharp(file).metadata()).toMatchObject({ format: 'webp', width: 256, height: 256 });

    const get = await served(url);
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('image/webp');
    expect(get.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(get.body.equals(file)).toBe(true);
    expect(tempFiles()).toEqual([]);
  });

  it('answers HEAD and a conditional GET (304) too', async () => {
    const { avatarUrl } = await accountWithAvatar();
    const head = await served(avatarUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(readFileSync(fileOf(avatarUrl)).length);
    const etag = head.headers.get('etag') ?? '';
    expect(etag).toContain(path.basename(avatarUrl, '.webp'));
    // fetch adds Cache-Control: no-cache (which forbids a 304) unless the request sets its own.
    const again = await served(avatarUrl, {
      headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' },
    });
    expect(again.status).toBe(304);
  });

  it('removes GPS and every other EXIF from the stored photo', async () => {
    const account = await signUp(server);
    const input = await jpegWithGps();
    expect((await exifTags(input))?.gps).toContain(2); // GPSLatitude
    const res = await server.upload('/users/avatar', form(input), { token: account.token });
    expect(res.status).toBe(200);
    const stored = (await served(res.body.avatar_url)).body;
    expect(await exifTags(stored)).toBeNull();
    expect(stored.includes(Buffer.from('TestCam'))).toBe(false);
  });

  it('turns an EXIF-rotated photo upright', async () => {
    const account = await signUp(server);
    const res = await server.upload('/users/avatar', form(await sidewaysJpeg()), { token: account.token });
    const stored = (await served(res.body.avatar_url)).body;
    expect(near(await pixel(stored, 128, 40), RED)).toBe(true);
    expect(near(await pixel(stored, 128, 215), BLUE)).toBe(true);
  });

  it('gives two people who upload the same picture a file each: replacing one leaves the other', async () => {
    const shared = randomColor();
    const alice = await accountWithAvatar(shared);
    const bob = await signUp(server);
    const same = await server.upload('/users/avatar', form(await solid('jpeg', { color: shared })), {
      token: bob.token,
    });
    expect(same.status).toBe(200);
    const bobUrl: string = same.body.avatar_url;
    expect(bobUrl).not.toBe(alice.avatarUrl);
    expect(readFileSync(fileOf(bobUrl)).equals(readFileSync(fileOf(alice.avatarUrl)))).toBe(true);

    const next = await server.upload('/users/avatar', form(await solid('gif')), { token: alice.token });
    expect(next.status).toBe(200);
    expect((await served(alice.avatarUrl)).status).toBe(404);
    expect((await served(bobUrl)).status).toBe(200);
    expect((await me(bob.token)).avatar_url).toBe(bobUrl);

    const stock = await server.request('PUT', '/users/profile', {
      token: bob.token,
      body: { avatar: 'owl' },
    });
    expect(stock.body.user.avatar_url).toBe('/avatars/stock/owl.svg');
    expect(existsSync(fileOf(bobUrl))).toBe(false);
    expect((await served(next.body.avatar_url)).status).toBe(200);
  });

  it('keeps a picture someone is just uploading when another person drops the same picture', async () => {
    // The race of shared files: Bob's upload has stored its file but not yet pointed his
    // profile at it while Alice, who had the same picture, replaces hers.
    const shared = randomColor();
    const alice = await accountWithAvatar(shared);
    const bob = await signUp(server);
    const { avatars, users } = server.services;
    const image = readFileSync(fileOf(alice.avatarUrl));
    const bobUrl = await avatars.store.save(image);
    expect(
      (await server.upload('/users/avatar', form(await solid('gif')), { token: alice.token })).status,
    ).toBe(200);
    await users.updateProfile(bob.user.id, { avatarUrl: bobUrl });
    expect((await served(bobUrl)).status).toBe(200);
    expect((await served((await me(bob.token)).avatar_url)).status).toBe(200);
  });

  const failures: Array<[string, () => Promise<FormData> | FormData, number, string]> = [
    ['a 0-byte file', () => form(Buffer.alloc(0)), 400, 'INVALID_IMAGE'],
    ['a truncated JPEG', async () => form(await truncatedJpeg()), 400, 'INVALID_IMAGE'],
    [
      'an SVG',
      () =>
        form('<svg xmlns="http://www.w3.org/2000/svg"><circle r="9"/></svg>', {
          name: 'a.svg',
          type: 'image/svg+xml',
        }),
      400,
      'INVALID_IMAGE',
    ],
    [
      'a text file named .png',
      () => form('not an image\n', { name: 'photo.png', type: 'image/png' }),
      400,
      'INVALID_IMAGE',
    ],
    [
      'a PNG declaring 20000×20000 pixels',
      () => form(hugePng(), { name: 'big.png', type: 'image/png' }),
      413,
      'IMAGE_TOO_LARGE',
    ],
    [
      'a 6 MB file (refused from Content-Length)',
      () => form(Buffer.alloc(6 * MB, 1)),
      413,
      'IMAGE_TOO_LARGE',
    ],
    [
      'a file 1 KB over 5 MB (refused while streaming)',
      () => form(Buffer.alloc(5 * MB + 1024, 1)),
      413,
      'IMAGE_TOO_LARGE',
    ],
    ['no file', () => new FormData(), 400, 'VALIDATION'],
    [
      'a file under another field name',
      async () => form(await solid('png'), { field: 'photo' }),
      400,
      'VALIDATION',
    ],
  ];

  it.each(failures)(
    'refuses %s, keeping the previous avatar and leaving no file behind',
    async (_name, make, status, code) => {
      const account = await accountWithAvatar();
      const before = storedFiles();
      const res = await server.upload('/users/avatar', await make(), { token: account.token });
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe(code);
      if (code === 'VALIDATION') expect(res.body.error.field).toBe('avatar');
      expect((await me(account.token)).avatar_url).toBe(account.avatarUrl);
      expect((await served(account.avatarUrl, { method: 'HEAD' })).status).toBe(200);
      expect(tempFiles()).toEqual([]);
      expect(storedFiles()).toEqual(before);
    },
  );

  it('refuses a second file in the same request', async () => {
    const account = await signUp(server);
    const body = form(await solid('png'));
    body.append('avatar', new Blob([new Uint8Array(await solid('jpeg'))], { type: 'image/jpeg' }), 'b.jpg');
    const res = await server.upload('/users/avatar', body, { token: account.token });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION', field: 'avatar' });
    expect(tempFiles()).toEqual([]);
  });

  it('refuses a JSON body with 415 and an anonymous upload with 401', async () => {
    const account = await signUp(server);
    const json = await server.request('POST', '/users/avatar', {
      token: account.token,
      body: { avatar: 'x' },
    });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const anonymous = await server.upload('/users/avatar', form(await solid('png')));
    expect(anonymous.status).toBe(401);
    expect(tempFiles()).toEqual([]);
  });
});

describe('GET /avatars/u/*', () => {
  it('serves only hash-shaped names: no other file of the data folder, no traversal', async () => {
    const { avatarUrl } = await accountWithAvatar();
    const hash = path.basename(avatarUrl, '.webp');
    for (const route of [
      `/avatars/u/${'0'.repeat(64)}.webp`,
      `/avatars/u/${hash.toUpperCase()}.webp`,
      `/avatars/u/${hash}.png`,
      `/avatars/u/${hash}`,
      '/avatars/u/..%2f..%2fjwt-secret',
      '/avatars/u/',
    ]) {
      expect((await served(route)).status, route).toBe(404);
    }
    // fetch resolves dot segments itself, so these arrive as /jwt-secret (the web app's fallback).
    const secret = readFileSync(path.join(server.dataDir, 'jwt-secret'), 'utf8').trim();
    for (const route of ['/avatars/u/../../jwt-secret', '/avatars/u/%2e%2e/%2e%2e/jwt-secret']) {
      expect((await served(route)).body.toString()).not.toContain(secret);
    }
  });
});
