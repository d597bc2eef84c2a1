/**
 * The accounts file `seed` writes and `run`/`calls` read: the deployment, the prefix and every
 * test account with its session token. It holds sign-in tokens, so it is written for its owner
 * only (0600).
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { SeedAccount } from '@voice/protocol';
import { SetupError } from '../cli/errors.ts';

export interface AccountsFile {
  url: string;
  prefix: string;
  accounts: SeedAccount[];
}

export async function writeAccounts(path: string, file: AccountsFile): Promise<void> {
  await writeFile(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
}

/**
 * The accounts of `path`, checked to belong to `url` and to be enough for `needed` participants
 * (each failure one line: run `seed` first, or with a larger --count).
 */
export async function readAccounts(path: string, url: string, needed: number): Promise<AccountsFile> {
  let file: AccountsFile;
  try {
    file = JSON.parse(await readFile(path, 'utf8')) as AccountsFile;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new SetupError(
      missing
        ? `no accounts file ${path} (run seed first)`
        : `${path} is not an accounts file written by seed`,
    );
  }
  if (!Array.isArray(file.accounts) || typeof file.url !== 'string')
    throw new SetupError(`${path} is not an accounts file written by seed`);
  if (file.url !== url) throw new SetupError(`${path} was seeded for ${file.url}, not ${url}`);
  if (file.accounts.length < needed)
    throw new SetupError(
      `${path} holds ${file.accounts.length} accounts; this needs ${needed} (seed --count ${needed})`,
    );
  return file;
}
