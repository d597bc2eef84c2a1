/**
 * What `run` and `calls` share around their participants: Chromium and the deployment checked
 * first, the impaired share's network namespaces, the progress on the terminal, and at the end
 * results.json, the report and the SLO verdicts in the results directory.
 */
import { accessSync, constants } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHROMIUM_PATH } from '@voice/browser-bots';
import { SetupError } from '../cli/errors.ts';
import { impairedCount } from '../cli/impair.ts';
import type { LoadOptions } from '../cli/options.ts';
import type { Deployment } from '../deployment/Deployment.ts';
import { closeAllImpairedNetworks, ImpairedNetwork, requireRoot } from '../impair/index.ts';
import {
  defaultPerBrowser,
  launchChromium,
  type RunOptions as ParticipantsOptions,
  type RunOutcome,
} from '../participants/index.ts';
import { Progress } from '../progress.ts';
import type { RunResults } from '../results/types.ts';
import type { ExitCode } from './exit.ts';
import { reportAndJudge } from './report.ts';

/** Joins (or calls) started per second when --ramp is not given. */
const DEFAULT_RAMP_PER_SEC = 10;

/** What loadRun hands the command: the participants' options it prepared. */
export type PreparedLaunch = Pick<
  ParticipantsOptions,
  'url' | 'perBrowser' | 'rampPerSec' | 'durationMs' | 'onProgress' | 'launchFor' | 'impairFor'
> & {
  /** How many of this shard's participants (`run`) or pairs' callees (`calls`) run impaired. */
  impaired: (units: number) => number;
};

export async function loadRun(
  options: LoadOptions & { rampPerSec?: number | null },
  kind: RunResults['kind'],
  start: (launch: PreparedLaunch) => Promise<RunOutcome>,
): Promise<ExitCode> {
  const impair = options.impair;
  const progress = new Progress();
  const rampPerSec = options.rampPerSec ?? DEFAULT_RAMP_PER_SEC;
  const startedAt = new Date();
  /** Per impaired browser, its network namespace. */
  const networks = new Map<number, ImpairedNetwork>();
  const remote = !isLoopback(options.url);
  let outcome: RunOutcome;
  try {
    outcome = await start({
      url: options.url,
      impaired: (units) => (impair ? impairedCount(impair.share, units) : 0),
      launchFor: (index, impaired) =>
        impair && impaired
          ? async (launchOptions) => {
              const network = await ImpairedNetwork.create(impair.spec, index, { remote });
              networks.set(index, network);
              return launchChromium({ ...launchOptions, executablePath: network.launchWrapper() });
            }
          : undefined,
      impairFor: (index) => (impair && networks.has(index) ? impair.spec : null),
      perBrowser: options.perBrowser ?? defaultPerBrowser(),
      rampPerSec,
      durationMs: options.durationMs,
      // Progress says when the generator is the bottleneck, once.
      onProgress: (snapshot) =>
        progress.update({
          target: snapshot.total,
          joined: snapshot.joined,
          hearing: snapshot.hearing,
          failed: snapshot.failed,
          cpuPct: snapshot.generator ? snapshot.generator.cpuPct / snapshot.generator.cores : 0,
          elapsedMs: snapshot.t,
          durationMs: (snapshot.total / rampPerSec) * 1000 + options.durationMs,
        }),
    });
    // What each impaired participant's network did, beside what was asked.
    for (const participant of outcome.participants) {
      const network = participant.impair ? networks.get(participant.browser) : undefined;
      if (network) {
        const { lossPct, delayMs } = await network.measured();
        participant.measuredImpair = { lossPct, delayMs };
      }
    }
  } finally {
    // Also after an error or Ctrl-C: no namespace, veth, rule or relay is left behind.
    await closeAllImpairedNetworks();
  }
  const results: RunResults = {
    version: 1,
    kind,
    startedAt: startedAt.toISOString(),
    url: options.url,
    options: { ...options },
    shard: options.shard,
    participants: outcome.participants,
    generator: outcome.generator,
    slo: options.slo,
  };
  await mkdir(options.out, { recursive: true });
  await writeFile(join(options.out, 'results.json'), `${JSON.stringify(results)}\n`);
  return reportAndJudge(options.out, results);
}

/**
 * What must hold before anything starts, each a SetupError of one line: Chromium is there, the
 * impairment can be made (root), the deployment answers.
 */
export async function preflight(options: LoadOptions, deployment: Deployment): Promise<void> {
  requireChromium();
  if (options.impair) requireRoot();
  await deployment.checkReachable();
}

/** A deployment on this machine: its 127.0.0.1 is reached from a namespace by forwarding to the host. */
function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
}

function requireChromium(): void {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
  } catch {
    throw new SetupError(`no Chromium at ${CHROMIUM_PATH} (install chromium or set CHROMIUM_PATH)`);
  }
}
