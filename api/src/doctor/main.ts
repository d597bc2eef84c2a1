/** The doctor as a command: prints the checklist, exits 1 when a check failed. */
import { runDoctor } from './doctor.ts';
import { exitCodeOf, formatReport } from './report.ts';

// As the API does: anything written to DATA_DIR (a generated secret) is the service's alone.
process.umask(0o077);
runDoctor(process.env).then(
  (results) => {
    process.stdout.write(formatReport(results));
    process.exit(exitCodeOf(results));
  },
  (error: unknown) => {
    process.stderr.write(
      `doctor: could not finish the checks: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(2);
  },
);
