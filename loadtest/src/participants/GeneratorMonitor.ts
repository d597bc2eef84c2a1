/**
 * The generator's own cost, every second: CPU (percent of one core) and memory of this Node
 * process and every process below it (the Chromiums it launched, their renderers and helpers),
 * summed over the process tree read from /proc. Warns when the tree uses more than 85% of the
 * machine: then the generator, not the service, is what limits the run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import type { GeneratorSample } from '../results/types.ts';

/** Linux's USER_HZ: /proc reports CPU time in 1/100 s on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;
const PAGE_KB = 4;
/** Above this share of the machine the generator is the bottleneck. */
export const GENERATOR_BUSY_SHARE = 0.85;

interface ProcessFigures {
  ppid: number;
  /** utime + stime, ticks. */
  cpuTicks: number;
  rssKb: number;
}

/** /proc/<pid>/stat's figures; null when the process is gone. */
function readProcess(pid: number): ProcessFigures | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: Number(fields[1]),
      cpuTicks: Number(fields[11]) + Number(fields[12]),
      rssKb: Number(fields[21]) * PAGE_KB,
    };
  } catch {
    return null;
  }
}

/**
 * The tree's proportional set size in MB (/proc/<pid>/smaps_rollup): pages shared between
 * Chromium's processes are divided among them, so the sum is what the tree really holds, where
 * the sum of RSS counts shared libraries once per process. Too dear for every second (the
 * kernel walks each process's page tables: about 20 ms a Chromium process), so a benchmark asks
 * for it once in a steady state. 0 where smaps_rollup is unreadable.
 */
export async function treePssMb(root = process.pid, exclude: number[] = []): Promise<number> {
  const pids = [...processTree(root, new Set(exclude)).keys()];
  const kb = await Promise.all(
    pids.map(async (pid) => {
      const text = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
      return Number(text.match(/^Pss:\s+(\d+)/m)?.[1] ?? 0);
    }),
  );
  return Math.round(kb.reduce((sum, value) => sum + value, 0) / 102.4) / 10;
}

/** The process tree under `root` (itself included), without the subtrees of `excluded`. */
function processTree(root: number, excluded: ReadonlySet<number>): Map<number, ProcessFigures> {
  const all = new Map<number, ProcessFigures>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const figures = readProcess(pid);
    if (figures) all.set(pid, figures);
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of all) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const tree = new Map<number, ProcessFigures>();
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    const figures = all.get(pid);
    if (!figures || excluded.has(pid)) continue;
    tree.set(pid, figures);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

export interface GeneratorMonitorOptions {
  /** Whose tree to measure; default this process. */
  root?: number;
  /** Processes (with their children) that are not the generator, e.g. a local API a benchmark started. */
  exclude?: number[];
  /** Called with each sample and whether the generator is the bottleneck now. */
  onSample?: (sample: GeneratorSample, busy: boolean) => void;
  /** Called once each time the tree passes `busyShare` of the machine (after being below). */
  warn?: (message: string) => void;
  /** The share of the machine's CPU above which the generator is the bottleneck; default 85%. */
  busyShare?: number;
}

export class GeneratorMonitor {
  readonly samples: GeneratorSample[] = [];
  readonly cores = cpus().length;
  readonly #root: number;
  readonly #excluded: Set<number>;
  readonly #options: GeneratorMonitorOptions;
  #ticks = new Map<number, number>();
  #at = 0;
  #origin = 0;
  #timer: NodeJS.Timeout | null = null;
  #busy = false;

  constructor(options: GeneratorMonitorOptions = {}) {
    this.#root = options.root ?? process.pid;
    this.#excluded = new Set(options.exclude ?? []);
    this.#options = options;
  }

  /** Starts sampling every second; `origin` is the run's t = 0 (default now). */
  start(origin = Date.now()): void {
    this.#origin = origin;
    this.#baseline();
    this.#timer = setInterval(() => this.sampleNow(), 1000);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #baseline(): void {
    this.#at = performance.now();
    this.#ticks = new Map([...processTree(this.#root, this.#excluded)].map(([pid, f]) => [pid, f.cpuTicks]));
  }

  /** Measures since the last sample (the processes that exited in between are not counted). */
  sampleNow(): GeneratorSample {
    const tree = processTree(this.#root, this.#excluded);
    const now = performance.now();
    let ticks = 0;
    let rssKb = 0;
    const seconds = Math.max(0.001, (now - this.#at) / 1000);
    for (const [pid, figures] of tree) {
      // A process first seen now spent at most the interval on one core (one that joined the
      // tree late, reparented, would otherwise bring its whole past with it).
      const since = this.#ticks.get(pid);
      ticks +=
        since === undefined
          ? Math.min(figures.cpuTicks, seconds * TICKS_PER_SECOND)
          : figures.cpuTicks - since;
      rssKb += figures.rssKb;
    }
    this.#at = now;
    this.#ticks = new Map([...tree].map(([pid, f]) => [pid, f.cpuTicks]));
    const sample: GeneratorSample = {
      t: Date.now() - this.#origin,
      // Never more than the machine has (the clock and the tick counts are read apart).
      cpuPct: Math.min(this.cores * 100, Math.round((ticks / TICKS_PER_SECOND / seconds) * 1000) / 10),
      cores: this.cores,
      rssMb: Math.round(rssKb / 102.4) / 10,
    };
    this.samples.push(sample);
    const busy = sample.cpuPct > (this.#options.busyShare ?? GENERATOR_BUSY_SHARE) * 100 * this.cores;
    if (busy && !this.#busy) {
      this.#options.warn?.(
        `The generator uses ${sample.cpuPct.toFixed(0)}% CPU of ${this.cores * 100}%: it, not the service, may be the bottleneck`,
      );
    }
    this.#busy = busy;
    this.#options.onSample?.(sample, busy);
    return sample;
  }
}
