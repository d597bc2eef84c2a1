/** `cleanup`: removes every test account with the prefix (and what hangs off them) from the deployment. */
import type { CleanupOptions } from '../cli/options.ts';
import { Deployment } from '../deployment/Deployment.ts';

export async function cleanup(options: CleanupOptions): Promise<void> {
  const deployment = new Deployment(options.url);
  await deployment.checkReachable();
  const removed = await deployment.cleanup(options.secret, options.prefix);
  process.stdout.write(`removed ${removed} test accounts (${options.prefix}…) from ${options.url}\n`);
}
