/**
 * From the raw results to what people read: per participant (joined, join time, first audio, loss
 * over the run, jitter and RTT p95, concealment, heard, MOS), the run's aggregates the SLOs read,
 * loss and jitter over time, the generator's peak, and the SLO verdicts.
 */
import { estimateMos } from '../model/emodel.ts';
import { type Aggregates, judge, parseSlo, type SloVerdict } from '../model/slo.ts';
import { counterIncrease, numbers, percentile } from '../model/stats.ts';
import type { ParticipantResult, ParticipantSample, RunResults } from './types.ts';

/** Energy growth (totalAudioEnergy) that counts as a voice heard: speech adds tenths a second. */
export const HEARD_ENERGY_MIN = 0.001;
/** Above this share of the machine's CPU the generator, not the service, may be the bottleneck. */
export const GENERATOR_CPU_LIMIT_PCT = 85;

/** One participant's figures over the run. */
export interface ParticipantSummary {
  id: string;
  name: string;
  role: ParticipantResult['role'];
  browser: number;
  shard: number | null;
  joined: boolean;
  /** Not joined, or dropped with an error. */
  failed: boolean;
  joinMs: number | null;
  firstAudioMs: number | null;
  /** Stage runs, a speaker the host invited: hand raised → on stage; null for everyone else. */
  stageMs: number | null;
  /** Inbound packets lost over the run, percent; null when nothing arrived nor was lost. */
  lossPct: number | null;
  jitterP95Ms: number | null;
  rttP95Ms: number | null;
  /** Concealed samples at the end, percent of those received. */
  concealedPct: number | null;
  /** Whether anyone was there to hear (a lone speaker hears nobody). */
  expectsAudio: boolean;
  /** Energy grew from at least one remote speaker; null when nobody was there to hear. */
  heard: boolean | null;
  mos: number | null;
  impair: ParticipantResult['impair'];
  measuredImpair: ParticipantResult['measuredImpair'];
  error: string | null;
}

/** p50 and p95 across participants at one second of the run. */
export interface BandPoint {
  /** Seconds since the run started. */
  t: number;
  p50: number;
  p95: number;
}

/** The generator's CPU (share of the machine) and memory at one second, per shard. */
export interface GeneratorPoint {
  t: number;
  shard: number;
  cpuPct: number;
  rssMb: number;
}

export interface RunSummary {
  kind: RunResults['kind'];
  url: string;
  startedAt: string;
  shards: number;
  counts: { participants: number; joined: number; failed: number; heard: number; expectingAudio: number };
  aggregates: Aggregates;
  participants: ParticipantSummary[];
  series: { lossPct: BandPoint[]; jitterMs: BandPoint[]; generator: GeneratorPoint[] };
  /** The generator's busiest second, percent of the machine, and whether it passed the limit. */
  generatorPeakCpuPct: number | null;
  generatorOverloaded: boolean;
  slo: string;
  verdicts: SloVerdict[];
  /** Every SLO held. */
  held: boolean;
}

/** Packets received and lost in each interval between samples (a drop in received: a restart). */
function lossDeltas(samples: ParticipantSample[]): Array<{ t: number; lost: number; received: number }> {
  let previous = { packetsReceived: 0, packetsLost: 0 };
  return samples.map((sample) => {
    const restarted = sample.packetsReceived < previous.packetsReceived;
    const base = restarted ? { packetsReceived: 0, packetsLost: 0 } : previous;
    previous = sample;
    return {
      t: sample.t,
      lost: sample.packetsLost - base.packetsLost,
      received: sample.packetsReceived - base.packetsReceived,
    };
  });
}

function lossPercent(lost: number, received: number): number | null {
  const total = Math.max(lost, 0) + received;
  return total > 0 ? (100 * Math.max(lost, 0)) / total : null;
}

/**
 * Whether any remote speaker's energy grew by HEARD_ENERGY_MIN between the participant's first and
 * last readings: growth seen while it was watched, not energy a stalled stream held at the start.
 */
function heardSomeone(samples: ParticipantSample[]): boolean {
  const speakers = new Set(samples.flatMap((sample) => Object.keys(sample.energyBySpeaker)));
  return [...speakers].some((speaker) => {
    const energies = numbers(samples.map((sample) => sample.energyBySpeaker[speaker]));
    return counterIncrease(energies) - (energies[0] ?? 0) >= HEARD_ENERGY_MIN;
  });
}

/** One participant over the run; `expectsAudio` says whether it had anyone to hear. */
export function summarizeParticipant(result: ParticipantResult, expectsAudio: boolean): ParticipantSummary {
  const joinedSamples = result.samples.filter((sample) => sample.joined);
  const joined = result.joinMs !== null || joinedSamples.length > 0;
  const deltas = lossDeltas(result.samples);
  const lossPct = lossPercent(
    deltas.reduce((sum, delta) => sum + delta.lost, 0),
    deltas.reduce((sum, delta) => sum + delta.received, 0),
  );
  const jitters = numbers(joinedSamples.map((sample) => sample.jitterMs));
  const rtts = numbers(joinedSamples.map((sample) => sample.rttMs));
  const concealed = numbers(result.samples.map((sample) => sample.concealedRatio)).at(-1);
  const mos =
    joined && lossPct !== null
      ? estimateMos({
          lossPct,
          rttMs: percentile(rtts, 50) ?? 0,
          jitterMs: percentile(jitters, 50),
          jitterBufferMs: percentile(numbers(joinedSamples.map((sample) => sample.jitterBufferMs)), 50),
        })
      : null;
  return {
    id: result.id,
    name: result.name,
    role: result.role,
    browser: result.browser,
    shard: result.shard ?? null,
    joined,
    failed: !joined || result.error !== null,
    joinMs: result.joinMs,
    firstAudioMs: result.firstAudioMs,
    stageMs: result.stageMs ?? null,
    lossPct,
    jitterP95Ms: percentile(jitters, 95),
    rttP95Ms: percentile(rtts, 95),
    concealedPct: concealed === undefined ? null : 100 * concealed,
    expectsAudio,
    heard: expectsAudio ? heardSomeone(result.samples) : null,
    mos,
    impair: result.impair,
    measuredImpair: result.measuredImpair,
    error: result.error,
  };
}

/** p50/p95 across participants, per second of the run, of what `valuesAt` reads from each. */
function band(perSecond: Map<number, number[]>): BandPoint[] {
  return [...perSecond.entries()]
    .sort(([a], [b]) => a - b)
    .map(([t, values]) => ({
      t,
      p50: percentile(values, 50) as number,
      p95: percentile(values, 95) as number,
    }));
}

function addAt(map: Map<number, number[]>, tMs: number, value: number | null): void {
  if (value === null) return;
  const second = Math.round(tMs / 1000);
  const values = map.get(second) ?? [];
  values.push(value);
  map.set(second, values);
}

function overTime(results: RunResults): RunSummary['series'] {
  const loss = new Map<number, number[]>();
  const jitter = new Map<number, number[]>();
  for (const participant of results.participants) {
    for (const delta of lossDeltas(participant.samples))
      addAt(loss, delta.t, lossPercent(delta.lost, delta.received));
    for (const sample of participant.samples) if (sample.joined) addAt(jitter, sample.t, sample.jitterMs);
  }
  const generator = results.generator.map((sample) => ({
    t: sample.t / 1000,
    shard: sample.shard ?? results.shard.index,
    cpuPct: sample.cpuPct / Math.max(sample.cores, 1),
    rssMb: sample.rssMb,
  }));
  return { lossPct: band(loss), jitterMs: band(jitter), generator };
}

/** Whether each participant had someone to hear: anyone in a call; in a room, another speaker. */
function expectations(results: RunResults): boolean[] {
  const speakers = results.participants.filter((participant) => participant.role === 'speaker').length;
  return results.participants.map(
    (participant) => results.kind === 'calls' || participant.role !== 'speaker' || speakers > 1,
  );
}

/** The summary of a run (or of merged shards), judged by its own SLO expression. */
export function summarize(results: RunResults): RunSummary {
  const expecting = expectations(results);
  const participants = results.participants.map((result, i) =>
    summarizeParticipant(result, expecting[i] as boolean),
  );
  const joined = participants.filter((participant) => participant.joined);
  const pooled = (read: (sample: ParticipantSample) => number | null) =>
    numbers(results.participants.flatMap((p) => p.samples.filter((s) => s.joined).map(read)));
  const jitters = pooled((sample) => sample.jitterMs);
  const rtts = pooled((sample) => sample.rttMs);
  const joins = numbers(joined.map((participant) => participant.joinMs));
  const firstAudio = numbers(participants.map((participant) => participant.firstAudioMs));
  const stages = numbers(participants.map((participant) => participant.stageMs));
  const losses = numbers(participants.map((participant) => participant.lossPct));
  const moses = numbers(participants.map((participant) => participant.mos));
  const listeners = participants.filter((participant) => participant.expectsAudio);
  const heard = listeners.filter((participant) => participant.heard).length;
  const failed = participants.filter((participant) => participant.failed).length;
  const aggregates: Aggregates = {
    joinP50: percentile(joins, 50),
    joinP95: percentile(joins, 95),
    joinP99: percentile(joins, 99),
    firstAudioP50: percentile(firstAudio, 50),
    firstAudioP95: percentile(firstAudio, 95),
    firstAudioP99: percentile(firstAudio, 99),
    stageP50: percentile(stages, 50),
    stageP95: percentile(stages, 95),
    lossP50: percentile(losses, 50),
    lossP95: percentile(losses, 95),
    jitterP50: percentile(jitters, 50),
    jitterP95: percentile(jitters, 95),
    rttP50: percentile(rtts, 50),
    rttP95: percentile(rtts, 95),
    mosP05: percentile(moses, 5),
    mosP50: percentile(moses, 50),
    heard: listeners.length > 0 ? (100 * heard) / listeners.length : null,
    failedPct: participants.length > 0 ? (100 * failed) / participants.length : null,
    failedCount: failed,
    concealedP95: percentile(numbers(participants.map((participant) => participant.concealedPct)), 95),
  };
  const series = overTime(results);
  const peak =
    series.generator.length > 0 ? Math.max(...series.generator.map((point) => point.cpuPct)) : null;
  const verdicts = judge(parseSlo(results.slo), aggregates);
  return {
    kind: results.kind,
    url: results.url,
    startedAt: results.startedAt,
    shards: results.merged?.length ?? 1,
    counts: {
      participants: participants.length,
      joined: joined.length,
      failed,
      heard,
      expectingAudio: listeners.length,
    },
    aggregates,
    participants,
    series,
    generatorPeakCpuPct: peak,
    generatorOverloaded: peak !== null && peak > GENERATOR_CPU_LIMIT_PCT,
    slo: results.slo,
    verdicts,
    held: verdicts.every((verdict) => verdict.held),
  };
}
