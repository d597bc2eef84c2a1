import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../logger.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { ProfileService } from '../users/ProfileService.ts';
import { AvatarService } from './AvatarService.ts';
import { solid, truncatedJpeg } from './testImages.ts';

let server: TestServer;
let dataDir: string;
beforeAll(async () => {
  server = await TestServer.start();
  dataDir = mkdtempSync(path.join(tmpdir(), 'voice-avatar-service-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const logged: string[] = [];
const logger: Logger = {
  debug() {},
  info() {},
  warn: (message) => logged.push(message),
  error: (message) => logged.push(message),
};
const heard: Array<[string, string | null]> = [];

async function service(onAvatarChanged?: (userId: string, url: string | null) => void) {
  return AvatarService.create({ users: server.services.users, logger, dataDir, onAvatarChanged });
}

/** An uploaded file as the multipart parser leaves it. */
function upload(content: Buffer) {
  const file = path.join(dataDir, 'tmp', `upload-${randomUUID()}`);
  writeFileSync(file, content);
  return { path: file, size: content.length };
}

describe('AvatarService', () => {
  it('tells the listener of an upload and of a stock choice, and deletes the replaced upload', async () => {
    const avatars = await service((userId, url) => heard.push([userId, url]));
    const profiles = new ProfileService(server.services.users, avatars);
    const { user } = await signUp(server);

    const url = await avatars.upload(user.id, upload(await solid('png')));
    expect(heard).toContainEqual([user.id, url]);
    expect(existsSync(path.join(avatars.store.dir, path.basename(url)))).toBe(true);

    await profiles.update(user.id, { avatar: 'fox' });
    expect(heard).toContainEqual([user.id, '/avatars/stock/fox.svg']);
    expect(existsSync(path.join(avatars.store.dir, path.basename(url)))).toBe(false);

    // Choosing the avatar one already has changes nothing and tells no one.
    const count = heard.length;
    await profiles.update(user.id, { avatar: 'fox' });
    expect(heard).toHaveLength(count);
  });

  it('still succeeds when the listener throws', async () => {
    const avatars = await service(() => {
      throw new Error('bus down');
    });
    const { user } = await signUp(server);
    const url = await avatars.upload(user.id, upload(await solid('webp')));
    expect((await server.services.users.findById(user.id))?.avatar_url).toBe(url);
    expect(logged).toContain('avatar change listener failed');
  });

  it('leaves no stored file when the user row cannot be updated or the image is broken', async () => {
    const avatars = await service();
    const before = readdirSync(avatars.store.dir);
    await expect(avatars.upload(randomUUID(), upload(await solid('jpeg')))).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
    });
    const { user } = await signUp(server);
    await expect(avatars.upload(user.id, upload(await truncatedJpeg()))).rejects.toMatchObject({
      code: 'INVALID_IMAGE',
    });
    expect(readdirSync(avatars.store.dir)).toEqual(before);
  });

  it('sweeps temp files a crashed process left, but not recent ones', async () => {
    const avatars = await service();
    const old = path.join(avatars.store.dir, `.${'a'.repeat(64)}.webp.dead.tmp`);
    const fresh = path.join(avatars.tmpDir, 'upload-in-progress');
    writeFileSync(old, 'x');
    writeFileSync(fresh, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    await service();
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    rmSync(fresh);
  });
});
