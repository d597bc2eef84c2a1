/** `calls`: 1:1 calls between pairs (the runner is built next; until then, a setup error). */
import { SetupError } from '../cli/errors.ts';
import type { CallsOptions } from '../cli/options.ts';
import type { ExitCode } from './exit.ts';

export async function calls(_options: CallsOptions): Promise<ExitCode> {
  throw new SetupError('calls is not built yet');
}
