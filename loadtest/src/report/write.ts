/**
 * Everything a results directory holds after a run, a merge or `report`: results.json (the raw
 * results, written if not there yet), summary.json, report.html and plots/*.png.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SetupError } from '../cli/errors.ts';
import { type RunSummary, summarize } from '../results/summarize.ts';
import type { RunResults } from '../results/types.ts';
import { renderHtml } from './html.ts';
import { buildPlots } from './plots.ts';
import { writePngs } from './png.ts';

/** What was written, and the summary it was built from. */
export interface WrittenReport {
  summary: RunSummary;
  html: string;
  pngs: string[];
}

/** Options: `png: false` leaves the PNG plots out (no Chromium needed). */
export interface WriteReportOptions {
  png?: boolean;
}

/** Writes the report of `results` into `dir` (created if missing). */
export async function writeReport(
  dir: string,
  results: RunResults,
  { png = true }: WriteReportOptions = {},
): Promise<WrittenReport> {
  await mkdir(dir, { recursive: true });
  const resultsFile = join(dir, 'results.json');
  if (!existsSync(resultsFile)) await writeFile(resultsFile, `${JSON.stringify(results)}\n`);
  const summary = summarize(results);
  const plots = buildPlots(summary);
  const html = join(dir, 'report.html');
  await writeFile(join(dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  await writeFile(html, renderHtml(summary, plots));
  const pngs = png ? await writePngs(dir, plots) : [];
  return { summary, html, pngs };
}

/** Reads DIR/results.json; a missing or unreadable file is a SetupError of one line. */
export async function readResults(dir: string): Promise<RunResults> {
  const file = join(dir, 'results.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new SetupError(`no results at ${file}`);
  }
  let results: RunResults;
  try {
    results = JSON.parse(text) as RunResults;
  } catch {
    throw new SetupError(`${file} is not JSON`);
  }
  if (results?.version !== 1 || !Array.isArray(results.participants) || !Array.isArray(results.generator))
    throw new SetupError(`${file} is not a load test's results (version 1)`);
  return results;
}
