/**
 * `calls`: 1:1 calls between pairs of seeded accounts (the 1st and 2nd, the 3rd and 4th…, which
 * `seed` made friends): the caller rings through the app's own call button, the callee accepts,
 * and both ends are sampled every second for the duration; peer to peer, or with `--turn`
 * through the deployment's TURN relay.
 */

import { readAccounts } from '../accounts/accountsFile.ts';
import type { CallsOptions } from '../cli/options.ts';
import { shardRange } from '../cli/shard.ts';
import { Deployment } from '../deployment/Deployment.ts';
import { type Account, runCallPairs } from '../participants/index.ts';
import type { ExitCode } from './exit.ts';
import { loadRun, preflight } from './loadRun.ts';

export async function calls(options: CallsOptions): Promise<ExitCode> {
  const deployment = new Deployment(options.url);
  await preflight(options, deployment);
  const file = await readAccounts(options.accounts, options.url, options.pairs * 2);
  const { start, end } = shardRange(options.pairs, options.shard);
  const pairs: Array<[Account, Account]> = [];
  for (let pair = start; pair < end; pair++)
    pairs.push([file.accounts[2 * pair] as Account, file.accounts[2 * pair + 1] as Account]);
  return loadRun(options, 'calls', (launch) =>
    runCallPairs({ ...launch, impaired: launch.impaired(pairs.length), pairs, relayOnly: options.turn }),
  );
}
