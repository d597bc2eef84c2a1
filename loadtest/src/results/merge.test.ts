// Two shards merged into one run on one clock, and the merges that must be refused.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli/errors.ts';
import { fixtureResults } from './fixtures.ts';
import { mergeResults } from './merge.ts';
import { summarize } from './summarize.ts';

const shard0 = fixtureResults({
  shard: { index: 0, count: 2 },
  participants: 4,
  speakers: 2,
  prefix: 'lt_a',
});
const shard1 = fixtureResults({
  shard: { index: 1, count: 2 },
  participants: 4,
  speakers: 1,
  prefix: 'lt_b',
  startedAt: '2026-11-26T03:00:02.500Z',
});

describe('mergeResults', () => {
  it('joins two shards: participants concatenated, clocks aligned, generators kept per shard', () => {
    const { results, warnings } = mergeResults([shard1, shard0], ['b', 'a']);
    expect(warnings).toEqual([]);
    expect(results.startedAt).toBe('2026-11-26T03:00:00.000Z');
    expect(results.shard).toEqual({ index: 0, count: 1 });
    expect(results.merged).toEqual([
      { index: 0, count: 2, startedAt: '2026-11-26T03:00:00.000Z', offsetMs: 0 },
      { index: 1, count: 2, startedAt: '2026-11-26T03:00:02.500Z', offsetMs: 2500 },
    ]);
    expect(results.participants.map((p) => [p.id, p.shard])).toEqual([
      ['lt_a0', 0],
      ['lt_a1', 0],
      ['lt_a2', 0],
      ['lt_a3', 0],
      ['lt_b0', 1],
      ['lt_b1', 1],
      ['lt_b2', 1],
      ['lt_b3', 1],
    ]);
    const b0 = results.participants[4];
    expect(b0?.samples[0]?.t).toBe(2500);
    expect(results.generator.filter((g) => g.shard === 1)[0]?.t).toBe(2500);
    expect(results.generator.filter((g) => g.shard === 0)).toHaveLength(21);
    // The merged run counts speakers over both shards (3), so the lone speaker of shard 1 hears.
    const summary = summarize(results);
    expect(summary.shards).toBe(2);
    expect(summary.counts).toMatchObject({ participants: 8, joined: 8 });
    expect(new Set(summary.series.generator.map((point) => point.shard))).toEqual(new Set([0, 1]));
  });

  it('merging one shard of two warns that the other is missing', () => {
    expect(mergeResults([shard0]).warnings).toEqual(['shards 1 of 2 are missing from the merge']);
  });

  const refused: Array<[string, () => unknown, RegExp]> = [
    ['nothing', () => mergeResults([]), /at least one/],
    [
      'the same shard twice',
      () => mergeResults([shard0, structuredClone(shard0)], ['a', 'a2']),
      /a and a2 are both shard 0\/2/,
    ],
    [
      'a room run with a calls run',
      () => mergeResults([shard0, { ...shard1, kind: 'calls' }], ['a', 'b']),
      /b is a calls run, a a room run/,
    ],
    [
      'different deployments',
      () => mergeResults([shard0, { ...shard1, url: 'http://other' }], ['a', 'b']),
      /b tested http:\/\/other/,
    ],
    [
      'different shard counts',
      () => mergeResults([shard0, { ...shard1, shard: { index: 1, count: 3 } }], ['a', 'b']),
      /b is one of 3 shards, a one of 2/,
    ],
    [
      'different SLOs',
      () => mergeResults([shard0, { ...shard1, slo: 'heard>50%' }], ['a', 'b']),
      /b was judged by 'heard>50%'/,
    ],
    [
      'a participant in two shards',
      () =>
        mergeResults([shard0, fixtureResults({ shard: { index: 1, count: 2 }, prefix: 'lt_a' })], ['a', 'b']),
      /participant Load lt_a0 is in both a and b/,
    ],
    ['a merge of merges', () => mergeResults([mergeResults([shard0, shard1]).results]), /already a merge/],
  ];
  it.each(refused)('refuses %s with one line', (_name, attempt, message) => {
    expect(attempt).toThrow(UsageError);
    expect(attempt).toThrow(message);
  });
});
