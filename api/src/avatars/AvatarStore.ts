/**
 * Uploaded avatars on disk: DATA_DIR/avatars/<256 random bits in hex>.webp, a new name for
 * every upload. A name never changes content, so browsers may cache a file forever; and no
 * two people (nor two uploads) share a file, so deleting a replaced one can never take away
 * someone else's picture, however their uploads interleave.
 */
import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UPLOADED_AVATAR_PATH, UPLOADED_AVATAR_URL_PATTERN } from '@voice/protocol';
import { PRIVATE_FILE_MODE, privateDir } from '../privateFiles.ts';

/** The only file names served or deleted: 64 hex digits and the extension. */
export const AVATAR_FILE_NAME = /^[0-9a-f]{64}\.webp$/;

const TEMP_SUFFIX = '.tmp';
// Temp files older than this belong to a process that died mid-write.
const STALE_TEMP_MS = 60 * 60 * 1000;

export class AvatarStore {
  private constructor(
    /** The folder holding the avatar files. */
    readonly dir: string,
  ) {}

  /** Opens (creating if needed) the store in `dir`, clearing temp files left by a crash. */
  static async create(dir: string): Promise<AvatarStore> {
    await privateDir(dir);
    const store = new AvatarStore(dir);
    await store.#sweepStaleTemp();
    return store;
  }

  static isUploadedUrl(url: string | null): url is string {
    return url !== null && UPLOADED_AVATAR_URL_PATTERN.test(url);
  }

  /** Stores `image` under a new name (atomically: temp file, then rename) and returns its URL. */
  async save(image: Buffer): Promise<string> {
    const name = `${randomBytes(32).toString('hex')}.webp`;
    // Beside the target so the rename stays on one file system; the dot keeps it out of the name pattern.
    const temp = path.join(this.dir, `.${name}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
    try {
      await writeFile(temp, image, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      await rename(temp, path.join(this.dir, name));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return `${UPLOADED_AVATAR_PATH}/${name}`;
  }

  /** Deletes the file behind an uploaded avatar's URL; anything else (stock, null) is left alone. */
  async remove(url: string | null): Promise<void> {
    if (!AvatarStore.isUploadedUrl(url)) return;
    await rm(path.join(this.dir, path.basename(url)), { force: true });
  }

  /** The path of a stored file by name, or null for a name outside the pattern (no traversal). */
  fileOf(name: string): string | null {
    return AVATAR_FILE_NAME.test(name) ? path.join(this.dir, name) : null;
  }

  async #sweepStaleTemp(): Promise<void> {
    const now = Date.now();
    for (const entry of await readdir(this.dir)) {
      if (!entry.endsWith(TEMP_SUFFIX)) continue;
      const file = path.join(this.dir, entry);
      const info = await stat(file).catch(() => null);
      if (info && now - info.mtimeMs > STALE_TEMP_MS) await rm(file, { force: true });
    }
  }
}
