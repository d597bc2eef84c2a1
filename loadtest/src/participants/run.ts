/**
 * The runs the CLI calls: participants in one room (runRoomParticipants) or 1:1 calls between
 * pairs (runCallPairs). Joins ramp at `rampPerSec`; every second each page is sampled (all in
 * parallel, one evaluate each) and the generator measured; after the ramp the run lasts
 * `durationMs`; then everyone leaves through the app and every browser is closed, also after an
 * error or Ctrl-C (the results so far are returned; a second Ctrl-C exits at once).
 */
import type { GeneratorSample, ImpairSpec, ParticipantResult } from '../results/types.ts';
import { startCallPair } from './CallPair.ts';
import { Generator, type Voice } from './Generator.ts';
import { GeneratorMonitor } from './GeneratorMonitor.ts';
import type { LaunchBrowser } from './launch.ts';
import type { Account, Participant } from './Participant.ts';
import { joinRoom } from './RoomParticipant.ts';
import { StageHost } from './StageHost.ts';
import { within } from './timeouts.ts';

/** What the terminal shows while the run goes on. */
export interface ProgressSnapshot {
  /** ms since the run started. */
  t: number;
  phase: 'ramp' | 'steady' | 'leaving';
  total: number;
  joined: number;
  /** Joined participants that received audio energy. */
  hearing: number;
  failed: number;
  generator: GeneratorSample | null;
  /** The generator uses more than 85% of the machine. */
  generatorBusy: boolean;
}

/** What both kinds of run take. */
export interface RunOptions {
  /** The deployment, e.g. https://voice.example.org (no trailing path). */
  url: string;
  /** Participants per browser (see defaultPerBrowser). */
  perBrowser: number;
  /** Joins (or calls) started per second. */
  rampPerSec: number;
  /** How long the run lasts once the ramp is over. */
  durationMs: number;
  onProgress?: (snapshot: ProgressSnapshot) => void;
  /** Wraps the launch of browser `index` (an impaired one: see Generator); undefined: the plain launch. */
  launchFor?: (browserIndex: number, impaired: boolean) => LaunchBrowser | undefined;
  /** The impairment the participants of browser `index` run under, for their results. */
  impairFor?: (browserIndex: number) => ImpairSpec | null;
  /** Told once when the generator passes 85% of the machine's CPU. */
  warn?: (message: string) => void;
  /** Stops the run early (as Ctrl-C does); the results so far are returned. */
  signal?: AbortSignal;
  /** Keep the app's default voice processing in every page (default: off, see Generator). */
  appVoiceProcessing?: boolean;
  /** Processes below this one that are not the generator (e.g. a local API), left out of its cost. */
  excludeFromCost?: number[];
}

export interface RunOutcome {
  participants: ParticipantResult[];
  generator: GeneratorSample[];
}

export interface RoomRunOptions extends RunOptions {
  roomId: string;
  accounts: Account[];
  /** The first `speakers` accounts speak; the others listen, muted. */
  speakers: number;
  /** The last `impaired` accounts run under the impairment, each in a browser of its own. */
  impaired?: number;
  /** The room is a stage: its speakers are invited by a host (see RoomStage). */
  stage?: RoomStage;
}

/** How a stage run's speakers get on stage. */
export interface RoomStage {
  /**
   * This shard's first account is the host: the room's admin or a moderator, on stage from the
   * start, who invites the others (StageHost). Other shards' speakers wait for it.
   */
  host: boolean;
  /** Display names of the speakers the host invites (every shard's, the host's own left out). */
  invite: string[];
}

export function runRoomParticipants(options: RoomRunOptions): Promise<RunOutcome> {
  const { accounts, speakers, roomId, stage } = options;
  return runLoad(options, accounts.length, 1, async (generator, i) => {
    const account = accounts[i] as Account;
    const role: Voice = i < speakers ? 'speaker' : 'listener';
    const impaired = i >= accounts.length - (options.impaired ?? 0);
    const onStage = !stage
      ? undefined
      : i === 0 && stage.host
        ? ('host' as const)
        : role === 'speaker'
          ? ('speaker' as const)
          : ('audience' as const);
    const participant = await joinRoom({ generator, account, roomId, role, impaired, stage: onStage });
    // Ends by itself once every speaker is invited, or when the host's page closes as it leaves.
    if (onStage === 'host' && participant.joined)
      void new StageHost(participant.page, stage?.invite ?? []).run();
    return [participant];
  });
}

export interface CallRunOptions extends RunOptions {
  /** Caller and callee, friends already. */
  pairs: Array<[Account, Account]>;
  /** Every call relays through TURN (`iceTransportPolicy: 'relay'` in both pages). */
  relayOnly?: boolean;
  /** The callees of the last `impaired` pairs run under the impairment, each in a browser of its own. */
  impaired?: number;
}

export function runCallPairs(options: CallRunOptions): Promise<RunOutcome> {
  const { pairs } = options;
  return runLoad(options, pairs.length, 2, (generator, i) => {
    const [caller, callee] = pairs[i] as [Account, Account];
    const impairedCallee = i >= pairs.length - (options.impaired ?? 0);
    return startCallPair({ generator, caller, callee, impairedCallee });
  });
}

/** Starts `count` units (a room participant, a call pair: `unitSize` participants) at the ramp's pace and runs them. */
async function runLoad(
  options: RunOptions & { relayOnly?: boolean },
  count: number,
  unitSize: number,
  startUnit: (generator: Generator, index: number) => Promise<Participant[]>,
): Promise<RunOutcome> {
  if (!(options.rampPerSec > 0)) throw new Error(`rampPerSec must be above 0, not ${options.rampPerSec}`);
  const origin = Date.now();
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  const onSigint = () => {
    if (stopping.signal.aborted) process.exit(130);
    stop();
  };
  process.on('SIGINT', onSigint);
  const generator = new Generator({
    baseURL: options.url.replace(/\/+$/, ''),
    perBrowser: options.perBrowser,
    launchFor: options.launchFor,
    relayOnly: options.relayOnly,
    appVoiceProcessing: options.appVoiceProcessing,
  });
  // In joining order, for sampling; `units` keeps the accounts' order for the results.
  const participants: Participant[] = [];
  const units: Participant[][] = [];
  let phase: ProgressSnapshot['phase'] = 'ramp';
  let lastGenerator: { sample: GeneratorSample; busy: boolean } | null = null;
  const monitor = new GeneratorMonitor({
    exclude: options.excludeFromCost,
    warn: options.warn,
    onSample: (sample, busy) => {
      lastGenerator = { sample, busy };
    },
  });
  monitor.start(origin);
  const progress = () =>
    options.onProgress?.({
      t: Date.now() - origin,
      phase,
      total: count * unitSize,
      joined: participants.filter((p) => p.joined).length,
      hearing: participants.filter((p) => p.joined && p.firstAudioMs !== null).length,
      failed: participants.filter((p) => p.error !== null).length,
      generator: lastGenerator?.sample ?? null,
      generatorBusy: lastGenerator?.busy ?? false,
    });
  let sampling = Promise.resolve();
  let sampleInFlight = false;
  const ticker = setInterval(() => {
    // A second whose sampling is not done yet is skipped rather than queued behind it.
    if (sampleInFlight) return;
    sampleInFlight = true;
    const t = Date.now() - origin;
    sampling = Promise.all(participants.map((p) => p.sample(t)))
      .then(progress)
      .finally(() => {
        sampleInFlight = false;
      });
  }, 1000);
  try {
    const starting: Array<Promise<void>> = [];
    for (let i = 0; i < count && !stopping.signal.aborted; i++) {
      const due = origin + (i * 1000) / options.rampPerSec;
      await sleep(due - Date.now(), stopping.signal);
      if (stopping.signal.aborted) break;
      starting.push(
        startUnit(generator, i).then((unit) => {
          units[i] = unit;
          for (const participant of unit) {
            participant.impair = options.impairFor?.(participant.browser) ?? null;
            participants.push(participant);
            if (participant.joined) void participant.watchFirstAudio();
          }
        }),
      );
    }
    await Promise.all(starting);
    phase = 'steady';
    await sleep(options.durationMs, stopping.signal);
  } finally {
    phase = 'leaving';
    clearInterval(ticker);
    await within(sampling, 10_000, undefined);
    progress();
    process.off('SIGINT', onSigint);
    options.signal?.removeEventListener('abort', stop);
    await Promise.all(participants.map((p) => p.leave()));
    await generator.close();
    monitor.stop();
  }
  return { participants: units.flat().map((p) => p.result()), generator: monitor.samples };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
