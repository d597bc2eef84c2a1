/** The doctor's checklist: what one check found, and how the list is printed. */

/** pass ✓, fail ✗ (the exit code says so), warn ⚠ (could not be verified), skip – (does not apply). */
export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** The outcome of one check. */
export interface CheckResult {
  status: CheckStatus;
  /** What was checked: a variable or a service ("DATABASE_URL", "TURN relay"). */
  title: string;
  /** What was found, in a few words. */
  detail: string;
  /** What to do about a failure or a warning. */
  fix?: string;
}

const MARK: Record<CheckStatus, string> = { pass: '✓', fail: '✗', warn: '⚠', skip: '–' };

export const pass = (title: string, detail: string): CheckResult => ({ status: 'pass', title, detail });
export const fail = (title: string, detail: string, fix: string): CheckResult => ({
  status: 'fail',
  title,
  detail,
  fix,
});
export const warn = (title: string, detail: string, fix: string): CheckResult => ({
  status: 'warn',
  title,
  detail,
  fix,
});
export const skip = (title: string, why: string): CheckResult => ({
  status: 'skip',
  title,
  detail: `skipped: ${why}`,
});

/** One line per check (and an indented fix line), then the totals. */
export function formatReport(results: readonly CheckResult[]): string {
  const lines = results.map((result) => {
    const line = `${MARK[result.status]}  ${result.title}: ${result.detail}`;
    return result.fix ? `${line}\n     fix: ${result.fix}` : line;
  });
  const count = (status: CheckStatus) => results.filter((result) => result.status === status).length;
  const failed = count('fail');
  lines.push(
    '',
    `${count('pass')} passed, ${failed} failed, ${count('warn')} to verify by hand, ${count('skip')} skipped`,
    failed > 0 ? 'Fix what is marked ✗ and run the doctor again.' : 'No problem found.',
  );
  return `${lines.join('\n')}\n`;
}

/** Non-zero when any check failed. */
export function exitCodeOf(results: readonly CheckResult[]): number {
  return results.some((result) => result.status === 'fail') ? 1 : 0;
}
