/** `run`: participants in one group room (the runner is built next; until then, a setup error). */
import { SetupError } from '../cli/errors.ts';
import type { RunOptions } from '../cli/options.ts';
import type { ExitCode } from './exit.ts';

export async function run(_options: RunOptions): Promise<ExitCode> {
  throw new SetupError('run is not built yet');
}
