/**
 * Shards into one run: each shard's results.json (shard i of n) joined on one clock, that of the
 * earliest start; participants concatenated (each marked with its shard), each generator's series
 * kept apart by shard. Mismatched runs and repeated shards are refused with one line.
 */
import { UsageError } from '../cli/errors.ts';
import type { RunResults } from './types.ts';

/** What was merged, and what a person should know about it (a missing shard). */
export interface Merged {
  results: RunResults;
  warnings: string[];
}

/** Merges shard results; `names` (their directories) only label the errors. */
export function mergeResults(shards: RunResults[], names: string[] = []): Merged {
  const first = shards[0];
  if (!first) throw new UsageError('merge needs at least one results directory');
  const label = (i: number) => names[i] ?? `results #${i + 1}`;
  const seen = new Map<number, number>();
  const owner = new Map<string, number>();
  shards.forEach((shard, i) => {
    if (shard.version !== 1) throw new UsageError(`${label(i)}: results version ${shard.version} is not 1`);
    if (shard.merged) throw new UsageError(`${label(i)} is already a merge; merge the shards themselves`);
    if (shard.kind !== first.kind)
      throw new UsageError(`${label(i)} is a ${shard.kind} run, ${label(0)} a ${first.kind} run`);
    if (shard.url !== first.url)
      throw new UsageError(`${label(i)} tested ${shard.url}, ${label(0)} tested ${first.url}`);
    if (shard.shard.count !== first.shard.count)
      throw new UsageError(
        `${label(i)} is one of ${shard.shard.count} shards, ${label(0)} one of ${first.shard.count}`,
      );
    if (shard.slo !== first.slo)
      throw new UsageError(`${label(i)} was judged by '${shard.slo}', ${label(0)} by '${first.slo}'`);
    const twin = seen.get(shard.shard.index);
    if (twin !== undefined)
      throw new UsageError(
        `${label(twin)} and ${label(i)} are both shard ${shard.shard.index}/${shard.shard.count}`,
      );
    seen.set(shard.shard.index, i);
    for (const participant of shard.participants) {
      const other = owner.get(participant.id);
      if (other !== undefined)
        throw new UsageError(`participant ${participant.name} is in both ${label(other)} and ${label(i)}`);
      owner.set(participant.id, i);
    }
  });
  const ordered = [...shards].sort((a, b) => a.shard.index - b.shard.index);
  const start = Math.min(...ordered.map((shard) => Date.parse(shard.startedAt)));
  const merged = ordered.map((shard) => ({
    index: shard.shard.index,
    count: shard.shard.count,
    startedAt: shard.startedAt,
    offsetMs: Date.parse(shard.startedAt) - start,
  }));
  const results: RunResults = {
    version: 1,
    kind: first.kind,
    startedAt: new Date(start).toISOString(),
    url: first.url,
    options: { ...first.options, shard: undefined },
    shard: { index: 0, count: 1 },
    participants: ordered.flatMap((shard, i) => {
      const offset = (merged[i] as { offsetMs: number }).offsetMs;
      return shard.participants.map((participant) => ({
        ...participant,
        shard: shard.shard.index,
        samples: participant.samples.map((sample) => ({ ...sample, t: sample.t + offset })),
      }));
    }),
    generator: ordered.flatMap((shard, i) => {
      const offset = (merged[i] as { offsetMs: number }).offsetMs;
      return shard.generator.map((sample) => ({ ...sample, t: sample.t + offset, shard: shard.shard.index }));
    }),
    slo: first.slo,
    merged,
  };
  const missing = Array.from({ length: first.shard.count }, (_, index) => index).filter(
    (index) => !seen.has(index),
  );
  const warnings =
    missing.length > 0
      ? [`shards ${missing.join(', ')} of ${first.shard.count} are missing from the merge`]
      : [];
  return { results, warnings };
}
