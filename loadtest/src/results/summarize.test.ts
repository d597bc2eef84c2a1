// From raw results to the summary: loss from counter deltas (with restarts), heard, MOS, aggregates, verdicts.
import { describe, expect, it } from 'vitest';
import { fixtureResults } from './fixtures.ts';
import { summarize, summarizeParticipant } from './summarize.ts';
import type { ParticipantResult, ParticipantSample } from './types.ts';

function sample(
  t: number,
  received: number,
  lost: number,
  energy: Record<string, number> = {},
): ParticipantSample {
  return {
    t,
    joined: true,
    packetsReceived: received,
    packetsLost: lost,
    jitterMs: 5,
    rttMs: 40,
    concealedRatio: 0.01,
    energyBySpeaker: energy,
    outboundKbps: 0,
  };
}

function participant(samples: ParticipantSample[]): ParticipantResult {
  return {
    id: 'u1',
    name: 'One',
    role: 'listener',
    browser: 0,
    impair: null,
    joinMs: 900,
    firstAudioMs: 1300,
    error: null,
    samples,
    measuredImpair: null,
  };
}

describe('summarizeParticipant', () => {
  it('loss over the run from the counters, a restart counted from zero', () => {
    const summary = summarizeParticipant(
      participant([sample(1000, 90, 10), sample(2000, 180, 20), sample(3000, 45, 5), sample(4000, 90, 10)]),
      true,
    );
    // 180 received + 20 lost before the restart, 90 + 10 after: 30 of 300.
    expect(summary.lossPct).toBeCloseTo(10);
    expect(summary.concealedPct).toBeCloseTo(1);
  });

  it('heard: energy from a remote speaker growing by at least 0.001', () => {
    const growing = [sample(1000, 50, 0, { a: 0.1, b: 0 }), sample(2000, 100, 0, { a: 0.3, b: 0 })];
    const flat = [sample(1000, 50, 0, { a: 0.1 }), sample(2000, 100, 0, { a: 0.1005 })];
    expect(summarizeParticipant(participant(growing), true).heard).toBe(true);
    expect(summarizeParticipant(participant(flat), true).heard).toBe(false);
    expect(summarizeParticipant(participant([]), true).heard).toBe(false);
    expect(summarizeParticipant(participant(growing), false).heard).toBeNull();
  });

  it('MOS from loss and median RTT; none without packets', () => {
    const clean = summarizeParticipant(participant([sample(1000, 50, 0), sample(2000, 100, 0)]), true);
    expect(clean.mos).toBeCloseTo(4.41, 2);
    expect(summarizeParticipant(participant([sample(1000, 0, 0)]), true).mos).toBeNull();
  });
});

describe('summarize', () => {
  it('a clean room: everyone joined and heard, SLOs held', () => {
    const summary = summarize(fixtureResults());
    expect(summary.counts).toEqual({ participants: 8, joined: 8, failed: 0, heard: 8, expectingAudio: 8 });
    expect(summary.aggregates.joinP50).toBe(950);
    expect(summary.aggregates.joinP95).toBe(1150);
    expect(summary.aggregates.lossP95).toBe(0);
    expect(summary.aggregates.heard).toBe(100);
    expect(summary.aggregates.failedCount).toBe(0);
    expect(summary.aggregates.mosP05).toBeGreaterThan(4.3);
    expect(summary.held).toBe(true);
    expect(summary.series.lossPct.length).toBe(20);
    expect(summary.series.generator[0]).toEqual({ t: 0, shard: 0, cpuPct: 20, rssMb: 600 });
    expect(summary.generatorOverloaded).toBe(false);
  });

  it('a lone speaker has nobody to hear and is not counted', () => {
    const summary = summarize(fixtureResults({ speakers: 1 }));
    expect(summary.counts.expectingAudio).toBe(7);
    expect(summary.participants[0]?.heard).toBeNull();
    expect(summary.aggregates.heard).toBe(100);
  });

  it('loss and failures breach the SLOs, and say by how much', () => {
    const summary = summarize(fixtureResults({ lossPct: 6, failing: 2 }));
    expect(summary.counts).toMatchObject({ joined: 6, failed: 2, heard: 6, expectingAudio: 8 });
    expect(summary.aggregates.lossP95).toBeCloseTo(6, 0);
    expect(summary.aggregates.heard).toBe(75);
    expect(summary.held).toBe(false);
    const breached = summary.verdicts.filter((verdict) => !verdict.held).map((verdict) => verdict.metric);
    expect(breached).toEqual(['lossP95', 'heard']);
    expect(summary.verdicts[1]?.line).toMatch(/^lossP95 < 2%: 6%, breached by 4%$/);
  });

  it('calls: both sides of each call are expected to hear', () => {
    const summary = summarize(
      fixtureResults({ kind: 'calls', participants: 4, speakers: 4, slo: 'heard>99%' }),
    );
    expect(summary.participants.map((participant) => [participant.role, participant.expectsAudio])).toEqual([
      ['caller', true],
      ['callee', true],
      ['caller', true],
      ['callee', true],
    ]);
    expect(summary.verdicts[0]).toMatchObject({ metric: 'heard', held: true, actual: 100 });
  });

  it('an overloaded generator is flagged', () => {
    const results = fixtureResults();
    results.generator = results.generator.map((point) => ({ ...point, cpuPct: 190 }));
    const summary = summarize(results);
    expect(summary.generatorPeakCpuPct).toBe(95);
    expect(summary.generatorOverloaded).toBe(true);
  });
});
