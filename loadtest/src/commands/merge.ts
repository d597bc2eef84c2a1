/** `merge DIR… [--out DIR]`: shard results joined into one results.json and one report. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MergeOptions } from '../cli/options.ts';
import { readResults } from '../report/write.ts';
import { mergeResults } from '../results/merge.ts';
import type { ExitCode } from './exit.ts';
import { reportAndJudge } from './report.ts';

export async function merge(options: MergeOptions): Promise<ExitCode> {
  const shards = await Promise.all(options.dirs.map((dir) => readResults(dir)));
  const { results, warnings } = mergeResults(shards, options.dirs);
  for (const warning of warnings) process.stderr.write(`voice-loadtest: warning: ${warning}\n`);
  await mkdir(options.out, { recursive: true });
  await writeFile(join(options.out, 'results.json'), `${JSON.stringify(results)}\n`);
  return reportAndJudge(options.out, results, { png: options.png });
}
