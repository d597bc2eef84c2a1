/**
 * `seed`: test accounts in bulk through the server's LOADTEST_SECRET route, befriended in pairs
 * (the 1st with the 2nd…, for `calls`), written with their tokens to the accounts file.
 */

import { writeAccounts } from '../accounts/accountsFile.ts';
import type { SeedOptions } from '../cli/options.ts';
import { Deployment } from '../deployment/Deployment.ts';

export async function seed(options: SeedOptions): Promise<void> {
  const deployment = new Deployment(options.url);
  await deployment.checkReachable();
  const accounts = await deployment.seed(options.secret, {
    prefix: options.prefix,
    count: options.count,
    start: 0,
    befriend: 'pairs',
  });
  await writeAccounts(options.out, { url: options.url, prefix: options.prefix, accounts });
  process.stdout.write(`seeded ${accounts.length} accounts (${options.prefix}0…) into ${options.out}\n`);
}
