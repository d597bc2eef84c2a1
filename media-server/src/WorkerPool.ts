import { EventEmitter } from 'node:events';
import { RTC_LIMITS } from '@voice/protocol';
import { routerMediaCodecs } from './codecs.ts';
import type { MediaConfig } from './config.ts';
import { InvalidStateError } from './errors.ts';
import { loadMediasoup, type Mediasoup } from './mediasoupLoader.ts';
import { type PortRange, splitPortRange } from './portRanges.ts';
import type { Logger, Router, Worker } from './types.ts';

/** Options of WorkerPool.create(). */
export interface WorkerPoolOptions {
  /** Where worker deaths and replacements are logged; defaults to `console`. */
  logger?: Logger;
  /** How often each worker's CPU is measured (ms); CPU_SAMPLE_MS by default. */
  cpuSampleMs?: number;
}

/** How often each worker's CPU time is read (worker.getResourceUsage()) for placement. */
export const CPU_SAMPLE_MS = 2000;

/**
 * Above this share of a core a worker counts as busy: new routers go to a worker that is not,
 * whatever it carries. Below it, a worker's CPU makes its load weigh more (see #leastLoaded).
 */
export const CPU_BUSY = 0.85;

/** One worker's share of the load. */
export interface WorkerLoad {
  readonly pid: number;
  readonly rtcMinPort: number;
  readonly rtcMaxPort: number;
  readonly routers: number;
  /** Share of one core it used over the last CPU sample (0 until measured). */
  readonly cpu: number;
}

/** What the pool carries, for placing rooms and for announcing this media server. */
export interface WorkerPoolLoad {
  readonly workers: number;
  readonly routers: number;
  readonly perWorker: readonly WorkerLoad[];
}

/** Events a WorkerPool emits. */
export interface WorkerPoolEvents {
  /** A worker process exited on its own; its routers are already closed. */
  workerdied: [worker: Worker, error: Error];
  /** A new worker took a dead one's place and port range. */
  workerreplaced: [worker: Worker];
  close: [];
}

/** A place for one worker: its port range, and how many times in a row its worker failed young. */
interface Slot {
  readonly range: PortRange;
  failures: number;
}

interface Entry {
  readonly worker: Worker;
  readonly slot: Slot;
  readonly startedAt: number;
  readonly routers: Set<Router>;
  /** createRouter() calls in flight, counted so concurrent calls spread out. */
  pending: number;
  /** Its CPU: the share of one core over the last sample, from the CPU time read then. */
  cpu: { share: number; seconds: number | null; at: number };
}

// A worker that dies sooner than this after starting probably dies of its settings or its
// environment. One such death is replaced at once (a one-off crash should cost nothing); from the
// second in a row the replacement waits, doubling up to the cap, instead of spinning.
const QUICK_DEATH_MS = 10_000;
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** The mediasoup workers of one media server: one port range each, replaced when they die. */
export class WorkerPool extends EventEmitter<WorkerPoolEvents> {
  readonly #config: MediaConfig;
  readonly #mediasoup: Mediasoup;
  readonly #logger: Logger;
  readonly #entries = new Map<Worker, Entry>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #cpuTimer: NodeJS.Timeout | null = null;
  #closed = false;

  /** Starts `config.numWorkers` workers; rejects (leaving nothing running) if any fails to start. */
  static async create(config: MediaConfig, options: WorkerPoolOptions = {}): Promise<WorkerPool> {
    const mediasoup = await loadMediasoup(config.workerBin, config.srtpLibDir);
    const pool = new WorkerPool(config, mediasoup, options.logger ?? console);
    const ranges = splitPortRange(config.rtcMinPort, config.rtcMaxPort, config.numWorkers);
    try {
      await Promise.all(ranges.map((range) => pool.#spawn({ range, failures: 0 })));
    } catch (error) {
      pool.close();
      throw error;
    }
    pool.#cpuTimer = setInterval(() => void pool.sampleCpu(), options.cpuSampleMs ?? CPU_SAMPLE_MS);
    pool.#cpuTimer.unref();
    return pool;
  }

  private constructor(config: MediaConfig, mediasoup: Mediasoup, logger: Logger) {
    super();
    this.#config = config;
    this.#mediasoup = mediasoup;
    this.#logger = logger;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** How many workers are running. */
  get size(): number {
    return this.#entries.size;
  }

  /** The running workers, in start order (metrics read their resource usage). */
  get workers(): Worker[] {
    return [...this.#entries.keys()];
  }

  get load(): WorkerPoolLoad {
    const perWorker = [...this.#entries.values()].map((entry) => ({
      pid: entry.worker.pid,
      rtcMinPort: entry.slot.range.rtcMinPort,
      rtcMaxPort: entry.slot.range.rtcMaxPort,
      routers: entry.routers.size,
      cpu: entry.cpu.share,
    }));
    // In port order rather than start order, which changes as workers are replaced.
    perWorker.sort((a, b) => a.rtcMinPort - b.rtcMinPort);
    const routers = perWorker.reduce((sum, worker) => sum + worker.routers, 0);
    return { workers: perWorker.length, routers, perWorker };
  }

  /**
   * How many members the worker holding `router` has ports for (RTC_LIMITS.portsPerMember each),
   * or 0 once the router is gone.
   */
  memberCapacityOf(router: Router): number {
    for (const entry of this.#entries.values()) {
      if (!entry.routers.has(router)) continue;
      const { rtcMinPort, rtcMaxPort } = entry.slot.range;
      return Math.floor((rtcMaxPort - rtcMinPort + 1) / RTC_LIMITS.portsPerMember);
    }
    return 0;
  }

  /** The pid of the worker holding `router` (tests kill it), or undefined once it is gone. */
  pidOf(router: Router): number | undefined {
    for (const entry of this.#entries.values()) if (entry.routers.has(router)) return entry.worker.pid;
    return undefined;
  }

  /** Every running worker's ports (its RTC range) and the routers on it. */
  get seats(): Array<{ ports: number; routers: ReadonlySet<Router> }> {
    return [...this.#entries.values()].map((entry) => ({
      ports: entry.slot.range.rtcMaxPort - entry.slot.range.rtcMinPort + 1,
      routers: entry.routers,
    }));
  }

  /**
   * Creates a router with the platform's codecs on the least-loaded worker, one not holding any
   * of `avoid` if there is one (a room's next part goes to another worker). A worker's load is
   * its routers and what `weightOf` says each of them carries (members and consumers), weighed
   * by its measured CPU (see sampleCpu): a worker above CPU_BUSY of a core comes last.
   */
  async createRouter(
    appData: Record<string, unknown> = {},
    avoid: readonly Router[] = [],
    weightOf: (router: Router) => number = () => 0,
  ): Promise<Router> {
    if (this.#closed) throw new InvalidStateError('WorkerPool closed');
    const entry = this.#leastLoaded(avoid, weightOf);
    if (!entry) throw new InvalidStateError('no mediasoup worker is running');

    entry.pending++;
    let router: Router;
    try {
      router = await entry.worker.createRouter({ mediaCodecs: routerMediaCodecs(), appData });
    } finally {
      entry.pending--;
    }
    if (this.#closed || router.closed) {
      router.close();
      throw new InvalidStateError(
        this.#closed
          ? 'WorkerPool closed while creating a router'
          : 'the worker died while creating a router',
      );
    }
    entry.routers.add(router);
    router.observer.once('close', () => entry.routers.delete(router));
    return router;
  }

  /**
   * Reads every worker's CPU time and keeps, per worker, the share of one core it used since the
   * last read (the pool does so every CPU_SAMPLE_MS). A worker that does not answer keeps its last.
   */
  async sampleCpu(): Promise<void> {
    await Promise.all(
      [...this.#entries.values()].map(async (entry) => {
        let usage: { ru_utime: number; ru_stime: number };
        try {
          usage = await entry.worker.getResourceUsage();
        } catch {
          return;
        }
        const now = performance.now();
        const seconds = (usage.ru_utime + usage.ru_stime) / 1000;
        const { seconds: before, at } = entry.cpu;
        const share =
          before === null || now <= at ? entry.cpu.share : (seconds - before) / ((now - at) / 1000);
        entry.cpu = { share: Math.max(0, share), seconds, at: now };
      }),
    );
  }

  /** Closes every worker, and with them their routers. Safe to call more than once. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#cpuTimer) clearInterval(this.#cpuTimer);
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const entry of this.#entries.values()) entry.worker.close();
    this.#entries.clear();
    this.emit('close');
  }

  #leastLoaded(avoid: readonly Router[], weightOf: (router: Router) => number): Entry | undefined {
    const free = [...this.#entries.values()].filter(
      (entry) => !avoid.some((router) => entry.routers.has(router)),
    );
    // What it carries, weighing more the more of a core it uses (an idle worker wins a tie).
    const loadOf = (entry: Entry) => {
      let load = entry.routers.size + entry.pending;
      for (const router of entry.routers) load += weightOf(router);
      return load * (1 + 2 * entry.cpu.share) + entry.cpu.share;
    };
    // A busy worker comes after every other, whatever they carry.
    const before = (a: Entry, b: Entry) => {
      const busyA = a.cpu.share > CPU_BUSY;
      const busyB = b.cpu.share > CPU_BUSY;
      return busyA !== busyB ? busyB : loadOf(a) < loadOf(b);
    };
    let best: Entry | undefined;
    for (const entry of free.length > 0 ? free : this.#entries.values()) {
      if (!best || before(entry, best)) best = entry;
    }
    return best;
  }

  async #spawn(slot: Slot): Promise<Worker> {
    const worker = await this.#mediasoup.createWorker({
      logLevel: this.#config.logLevel,
      rtcMinPort: slot.range.rtcMinPort,
      rtcMaxPort: slot.range.rtcMaxPort,
    });
    if (this.#closed) {
      worker.close();
      throw new InvalidStateError('WorkerPool closed while starting a worker');
    }
    const entry: Entry = {
      worker,
      slot,
      startedAt: Date.now(),
      routers: new Set(),
      pending: 0,
      cpu: { share: 0, seconds: null, at: 0 },
    };
    this.#entries.set(worker, entry);
    worker.on('died', (error: Error) => this.#onDied(entry, error));
    return worker;
  }

  #onDied(entry: Entry, error: Error): void {
    this.#entries.delete(entry.worker);
    if (this.#closed) return;
    const { slot } = entry;
    slot.failures = Date.now() - entry.startedAt < QUICK_DEATH_MS ? slot.failures + 1 : 0;
    this.#logger.error(
      `mediasoup worker ${entry.worker.pid} died (${error.message}) taking ${entry.routers.size} router(s) with it; replacing it`,
    );
    this.emit('workerdied', entry.worker, error);
    this.#scheduleReplacement(slot);
  }

  #scheduleReplacement(slot: Slot): void {
    if (slot.failures < 2) {
      void this.#replace(slot);
      return;
    }
    const delay = Math.min(RETRY_BASE_MS * 2 ** (slot.failures - 2), RETRY_MAX_MS);
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#replace(slot);
    }, delay);
    this.#timers.add(timer);
  }

  async #replace(slot: Slot): Promise<void> {
    if (this.#closed) return;
    let worker: Worker;
    try {
      worker = await this.#spawn(slot);
    } catch (error) {
      if (this.#closed) return;
      slot.failures++;
      this.#logger.error(`could not start a replacement mediasoup worker: ${(error as Error).message}`);
      this.#scheduleReplacement(slot);
      return;
    }
    const { rtcMinPort, rtcMaxPort } = slot.range;
    this.#logger.info(
      `mediasoup worker ${worker.pid} started in place of a dead one (ports ${rtcMinPort}-${rtcMaxPort})`,
    );
    this.emit('workerreplaced', worker);
  }
}
