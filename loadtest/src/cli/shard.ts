/**
 * `--shard i/n`: generator i (from 0, as Kubernetes' JOB_COMPLETION_INDEX) of n takes its share of
 * the participants and of the seeded accounts; `merge` joins the n results into one report.
 */
import { UsageError } from './errors.ts';

/** Which share of the work this generator takes. */
export interface Shard {
  /** From 0. */
  index: number;
  count: number;
}

/** The whole run in one generator. */
export const WHOLE: Shard = Object.freeze({ index: 0, count: 1 });

/** '2/4' → { index: 2, count: 4 }. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!match) throw new UsageError(`--shard '${text}' is not i/n (e.g. 0/4, counting from 0)`);
  const [index, count] = [Number(match[1]), Number(match[2])];
  if (count < 1) throw new UsageError(`--shard '${text}': n must be at least 1`);
  if (index >= count) throw new UsageError(`--shard '${text}': i counts from 0 and must be below n`);
  return { index, count };
}

/**
 * The range [start, end) of `total` items that `shard` takes: contiguous, sizes differing by at
 * most one, the larger shares first, so that the ranges of 0/n … n-1/n cover 0 … total once.
 */
export function shardRange(total: number, shard: Shard): { start: number; end: number } {
  const base = Math.floor(total / shard.count);
  const extra = total % shard.count;
  const start = shard.index * base + Math.min(shard.index, extra);
  return { start, end: start + base + (shard.index < extra ? 1 : 0) };
}
