/**
 * `report DIR`: the report rebuilt from DIR/results.json (report.html, summary.json, plots/), the
 * summary printed, and the exit code of the SLO verdicts.
 */
import { join } from 'node:path';
import type { ReportOptions } from '../cli/options.ts';
import { Progress } from '../progress.ts';
import { readResults, writeReport } from '../report/write.ts';
import type { RunResults } from '../results/types.ts';
import { EXIT, type ExitCode } from './exit.ts';

/** Writes the report of `results` into `dir`, prints its summary; 0 when every SLO held, else 1. */
export async function reportAndJudge(
  dir: string,
  results: RunResults,
  { png = true, out = process.stdout }: { png?: boolean; out?: { write(text: string): unknown } } = {},
): Promise<ExitCode> {
  const { summary } = await writeReport(dir, results, { png });
  out.write(`${Progress.table(summary)}\nreport: ${join(dir, 'report.html')}\n`);
  return summary.held ? EXIT.held : EXIT.breached;
}

export async function report(options: ReportOptions): Promise<ExitCode> {
  return reportAndJudge(options.dir, await readResults(options.dir), { png: options.png });
}
