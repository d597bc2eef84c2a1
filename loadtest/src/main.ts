/**
 * The CLI entry point (`npm run loadtest -- …`, `npx voice-loadtest …`): parses the command line,
 * runs the command, and exits 0 when every SLO held, 1 when one was breached, 2 for a usage or
 * setup error (printed as one line: `voice-loadtest: <what>`).
 */
import { SetupError, UsageError } from './cli/errors.ts';
import type { CommandOptions } from './cli/options.ts';
import { parseArgs } from './cli/parse.ts';
import { calls } from './commands/calls.ts';
import { cleanup } from './commands/cleanup.ts';
import { EXIT, type ExitCode } from './commands/exit.ts';
import { merge } from './commands/merge.ts';
import { report } from './commands/report.ts';
import { run } from './commands/run.ts';
import { seed } from './commands/seed.ts';

async function dispatch(options: CommandOptions): Promise<ExitCode> {
  switch (options.command) {
    case 'help':
      process.stdout.write(options.text);
      return EXIT.held;
    case 'run':
      return run(options);
    case 'calls':
      return calls(options);
    case 'seed':
      await seed(options);
      return EXIT.held;
    case 'cleanup':
      await cleanup(options);
      return EXIT.held;
    case 'merge':
      return merge(options);
    case 'report':
      return report(options);
  }
}

async function main(argv: string[]): Promise<ExitCode> {
  try {
    return await dispatch(parseArgs(argv, { env: process.env, cwd: process.cwd(), now: new Date() }));
  } catch (error) {
    if (error instanceof UsageError || error instanceof SetupError) {
      process.stderr.write(`voice-loadtest: ${error.message}\n`);
      return EXIT.usage;
    }
    // Anything else is the tool's own fault: the whole story, still exit 2.
    process.stderr.write(
      `voice-loadtest: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.usage;
  }
}

process.exitCode = await main(process.argv.slice(2));
