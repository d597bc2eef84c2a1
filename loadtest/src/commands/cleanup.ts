/** `cleanup`: removes the test accounts (built next, with the server's route; until then, a setup error). */
import { SetupError } from '../cli/errors.ts';
import type { CleanupOptions } from '../cli/options.ts';

export async function cleanup(_options: CleanupOptions): Promise<void> {
  throw new SetupError('cleanup is not built yet');
}
