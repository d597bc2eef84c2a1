/**
 * DATA_DIR holds secrets (the JWT secret, reset links in outbox mail, the database), so
 * everything in it is the service's alone: folders 0700, files 0600, whatever the umask.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) private, and makes it private if it already existed. */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE);
}

/** privateDir, for the few callers that cannot wait (config, before anything runs). */
export function privateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/** At start-up: DATA_DIR private, and whatever an older version left in it too. */
export async function prepareDataDir(dataDir: string): Promise<void> {
  await privateDir(dataDir);
  await makeTreePrivate(dataDir);
}

/**
 * Makes `root` and everything under it private: for what other code created with its own
 * modes (PGlite writes its files 0666) and for data dirs written by older versions.
 * Symbolic links are left alone, and a file deleted during the walk is no error.
 */
export async function makeTreePrivate(root: string): Promise<void> {
  const pending = [root];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const info = await lstat(next).catch(ignoreMissing);
    if (!info || info.isSymbolicLink()) continue;
    const mode = info.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
    if ((info.mode & 0o777) !== mode) await chmod(next, mode).catch(ignoreMissing);
    if (info.isDirectory()) {
      const entries = await readdir(next).catch(ignoreMissing);
      for (const entry of entries ?? []) pending.push(path.join(next, entry));
    }
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT') return undefined;
  throw error;
}
