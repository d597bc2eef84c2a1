/**
 * What a load-test run records: the raw results a generator writes to `results.json` (one per
 * shard), from which `report` and `merge` rebuild the summary and the HTML report. Times are
 * milliseconds; `t` is since the run started (the shard's own clock, aligned by `startedAt`).
 */

/** Network impairment asked for a share of the participants (`--impair`). */
export interface ImpairSpec {
  /** Packet loss, percent (0–100), each direction. */
  lossPct?: number;
  /** Added one-way delay, ms. */
  delayMs?: number;
  /** Jitter around the delay, ms. */
  jitterMs?: number;
  /** Rate limit, kbit/s. */
  rateKbit?: number;
}

/** One participant's figures at one second. Counters are cumulative; the summary takes deltas. */
export interface ParticipantSample {
  t: number;
  joined: boolean;
  /** Inbound audio over all the participant's receivers. */
  packetsReceived: number;
  packetsLost: number;
  /** Mean inbound jitter now, ms. */
  jitterMs: number | null;
  /** Round-trip time now (candidate pair or remote-inbound), ms. */
  rttMs: number | null;
  /** concealedSamples / totalSamplesReceived since the start. */
  concealedRatio: number | null;
  /** totalAudioEnergy received per remote speaker (user id), cumulative. */
  energyBySpeaker: Record<string, number>;
  /** Outbound audio bitrate over the last second, kbit/s (speakers; 0 for listeners). */
  outboundKbps: number;
  /** Mean jitter buffer delay now (jitterBufferDelay / jitterBufferEmittedCount), ms, when read. */
  jitterBufferMs?: number | null;
}

export interface ParticipantResult {
  /** The account's user id. */
  id: string;
  name: string;
  role: 'speaker' | 'listener' | 'caller' | 'callee';
  /** Which browser of the generator carried the page. */
  browser: number;
  /** The impairment it ran under, or null. */
  impair: ImpairSpec | null;
  /** Join click (or Accept, for calls) → in the room / call connected; null when it never was. */
  joinMs: number | null;
  /** Join click (or Accept) → first audio energy received; null when none arrived. */
  firstAudioMs: number | null;
  /** Stage runs, a speaker the host invited: hand raised → on stage (absent for everyone else). */
  stageMs?: number | null;
  /** The app's own error text when joining failed or the participant was dropped. */
  error: string | null;
  samples: ParticipantSample[];
  /** Measured under impairment (null without): loss percent and added delay the tool saw. */
  measuredImpair: { lossPct: number | null; delayMs: number | null } | null;
  /** The shard that ran it (set by merge; absent in a single shard's results). */
  shard?: number;
}

/** The generator machine itself, every second. */
export interface GeneratorSample {
  t: number;
  /** CPU of the tool and its browsers, percent of one core. */
  cpuPct: number;
  /** The machine's cores (so cpuPct / cores is the share of the machine). */
  cores: number;
  rssMb: number;
  /** The shard whose generator this is (set by merge; absent in a single shard's results). */
  shard?: number;
}

export interface RunResults {
  version: 1;
  kind: 'room' | 'calls';
  /** Wall clock of t = 0, ISO 8601. */
  startedAt: string;
  url: string;
  /** The command line's options as parsed (secrets left out). */
  options: Record<string, unknown>;
  shard: { index: number; count: number };
  participants: ParticipantResult[];
  generator: GeneratorSample[];
  /** The SLO expression the run was judged by ('' for none). */
  slo: string;
  /** Set by merge: the shards joined, each with its own start and its offset on the merged clock. */
  merged?: Array<{ index: number; count: number; startedAt: string; offsetMs: number }>;
}
