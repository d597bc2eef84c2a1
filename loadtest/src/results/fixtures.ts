/**
 * Results as a generator would write them, built from a few numbers, for the tests of the summary,
 * merge, report and CLI (the real runner writes the same shape from Chromium's getStats).
 */
import type { ImpairSpec, ParticipantResult, ParticipantSample, RunResults } from './types.ts';

/** What to fabricate: steady figures for every participant, some of them failing. */
export interface FixtureOptions {
  kind?: RunResults['kind'];
  shard?: { index: number; count: number };
  startedAt?: string;
  participants?: number;
  speakers?: number;
  seconds?: number;
  /** Loss every participant sees, percent. */
  lossPct?: number;
  rttMs?: number;
  jitterMs?: number;
  /** How many of the participants (the last ones) never join. */
  failing?: number;
  /** The first `count` participants run under `spec`. */
  impaired?: { count: number; spec: ImpairSpec };
  slo?: string;
  /** Ids and names start with this (distinct per shard). */
  prefix?: string;
  url?: string;
}

const PACKETS_PER_SECOND = 50;

function samples(
  options: Required<Omit<FixtureOptions, 'impaired'>>,
  index: number,
  speakerIds: string[],
  id: string,
): ParticipantSample[] {
  const out: ParticipantSample[] = [];
  const remote = speakerIds.filter((speaker) => speaker !== id);
  for (let second = 0; second <= options.seconds; second++) {
    const sent = PACKETS_PER_SECOND * second;
    const lost = Math.round((sent * options.lossPct) / 100);
    out.push({
      t: second * 1000 + index,
      joined: second > 0,
      packetsReceived: sent - lost,
      packetsLost: lost,
      jitterMs: second > 0 ? options.jitterMs + (second % 3) : null,
      rttMs: second > 0 ? options.rttMs + (second % 5) : null,
      concealedRatio: second > 0 ? options.lossPct / 200 : null,
      energyBySpeaker: Object.fromEntries(remote.map((speaker) => [speaker, 0.2 * second])),
      outboundKbps: speakerIds.includes(id) ? 32 : 0,
    });
  }
  return out;
}

/** A run's results with `participants` (default 8), `speakers` (default 3) and steady figures. */
export function fixtureResults(overrides: FixtureOptions = {}): RunResults {
  const options: Required<Omit<FixtureOptions, 'impaired'>> = {
    kind: 'room',
    shard: { index: 0, count: 1 },
    startedAt: '2026-11-26T03:00:00.000Z',
    participants: 8,
    speakers: 3,
    seconds: 20,
    lossPct: 0,
    rttMs: 40,
    jitterMs: 4,
    failing: 0,
    slo: 'joinP95<3000,lossP95<2%,mosP05>3.8,heard>99%',
    prefix: 'lt_',
    url: 'http://127.0.0.1:3000',
    ...overrides,
  };
  const ids = Array.from({ length: options.participants }, (_, i) => `${options.prefix}${i}`);
  const speakerIds = ids.slice(0, options.speakers);
  const participants = ids.map((id, i): ParticipantResult => {
    const fails = i >= options.participants - options.failing;
    const impaired = overrides.impaired && i < overrides.impaired.count ? overrides.impaired.spec : null;
    const role =
      options.kind === 'calls'
        ? i % 2 === 0
          ? 'caller'
          : 'callee'
        : speakerIds.includes(id)
          ? 'speaker'
          : 'listener';
    return {
      id,
      name: `Load ${id}`,
      role,
      browser: Math.floor(i / 2),
      impair: impaired,
      joinMs: fails ? null : 800 + 50 * i,
      firstAudioMs: fails ? null : 1200 + 50 * i,
      error: fails ? 'Could not join the room' : null,
      samples: fails ? [] : samples(options, i, speakerIds, id),
      measuredImpair: impaired ? { lossPct: options.lossPct, delayMs: impaired.delayMs ?? null } : null,
    };
  });
  return {
    version: 1,
    kind: options.kind,
    startedAt: options.startedAt,
    url: options.url,
    options: { participants: options.participants, speakers: options.speakers },
    shard: options.shard,
    participants,
    generator: Array.from({ length: options.seconds + 1 }, (_, second) => ({
      t: second * 1000,
      cpuPct: 40 + second,
      cores: 2,
      rssMb: 600 + 10 * second,
    })),
    slo: options.slo,
  };
}
