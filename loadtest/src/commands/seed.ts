/** `seed`: test accounts in bulk (built next, with the server's route; until then, a setup error). */
import { SetupError } from '../cli/errors.ts';
import type { SeedOptions } from '../cli/options.ts';

export async function seed(_options: SeedOptions): Promise<void> {
  throw new SetupError('seed is not built yet');
}
