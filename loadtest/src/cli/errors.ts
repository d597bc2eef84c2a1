/**
 * The two failures the CLI reports as one line and exit code 2: a command line that cannot be
 * run (`UsageError`, found before anything starts) and a setup that does not hold (`SetupError`:
 * an unreachable URL, a refused seed secret, a missing Chromium, a part not built).
 */

/** The command line is wrong; the message is one line naming the flag and what is expected. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The command line is right but the world is not ready for it; the message is one line. */
export class SetupError extends Error {
  override name = 'SetupError';
}
