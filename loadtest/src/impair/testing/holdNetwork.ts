/**
 * A process that sets up one impaired network and keeps it until it is killed, for the tests of
 * the exit hook (SIGINT), of cleanupStale() (SIGKILL) and of the refusal when not root. Prints the
 * namespace's name once ready; an error's message goes to stderr with exit code 2.
 * Usage: node --import tsx holdNetwork.ts INDEX
 */
import { ImpairedNetwork } from '../ImpairedNetwork.ts';

try {
  const network = await ImpairedNetwork.create({ lossPct: 10, delayMs: 20 }, Number(process.argv[2] ?? 0));
  network.launchWrapper();
  console.log(network.namespace);
  setInterval(() => {}, 60_000);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
