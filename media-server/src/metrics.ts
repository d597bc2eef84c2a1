/**
 * A media server's Prometheus metrics, on a registry the process gives it: the API's own when
 * the media server is embedded (one endpoint for both), or the media server process's.
 *
 * Rooms and peers are read from the media server when Prometheus asks; producers and consumers
 * are counted as mediasoup's observers report them; each worker's CPU time and peak memory
 * come from `worker.getResourceUsage()` at scrape time.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { MediaServer } from './MediaServer.ts';
import type { Consumer, Producer, Router, Transport, Worker } from './types.ts';

/** A worker that does not answer within this long is left out of one scrape rather than holding it. */
const USAGE_TIMEOUT_MS = 2000;

interface WorkerUsage {
  pid: number;
  /** User plus system CPU time, in seconds. */
  cpuSeconds: number;
  /** Peak resident memory, in bytes. */
  maxRssBytes: number;
}

/** Registers the media server's metrics on `registry`; call it before the first room is made. */
export function registerMediaMetrics(registry: Registry, media: MediaServer): void {
  const objects = new MediaObjects();
  for (const worker of media.pool.workers) objects.watch(worker);
  media.pool.on('workerreplaced', (worker) => objects.watch(worker));
  const usage = new UsageReader(() => media.pool.workers);
  const registers = [registry];

  new Gauge({
    name: 'voice_media_rooms',
    help: 'Group rooms open on this media server',
    registers,
    collect() {
      this.set(media.rooms.size);
    },
  });
  new Gauge({
    name: 'voice_media_peers',
    help: 'Room members connected to this media server over /rtc',
    registers,
    collect() {
      this.set(media.rtc.peerCount);
    },
  });
  new Gauge({
    name: 'voice_media_producers',
    help: 'mediasoup producers (voices sent to this media server)',
    registers,
    collect() {
      this.set(objects.producers);
    },
  });
  new Gauge({
    name: 'voice_media_consumers',
    help: 'mediasoup consumers (voices forwarded by this media server)',
    registers,
    collect() {
      this.set(objects.consumers);
    },
  });
  new Gauge({
    name: 'voice_media_workers',
    help: 'mediasoup workers running',
    registers,
    collect() {
      this.set(media.pool.load.workers);
    },
  });
  new Gauge({
    name: 'voice_media_worker_routers',
    help: 'Routers (one per room) on each mediasoup worker',
    labelNames: ['worker_pid'],
    registers,
    collect() {
      this.reset();
      for (const { pid, routers } of media.pool.load.perWorker) this.set({ worker_pid: pid }, routers);
    },
  });
  const deaths = new Counter({
    name: 'voice_media_worker_deaths_total',
    help: 'mediasoup workers that exited on their own (each is replaced)',
    registers,
  });
  media.pool.on('workerdied', () => deaths.inc());
  // A worker's CPU time only grows; a replaced worker is a new series (a new pid).
  new Counter({
    name: 'voice_media_worker_cpu_seconds_total',
    help: 'User and system CPU time of each mediasoup worker (getResourceUsage ru_utime + ru_stime)',
    labelNames: ['worker_pid'],
    registers,
    async collect() {
      const workers = await usage.read();
      this.reset();
      for (const { pid, cpuSeconds } of workers) this.inc({ worker_pid: pid }, cpuSeconds);
    },
  });
  new Gauge({
    name: 'voice_media_worker_max_rss_bytes',
    help: 'Peak resident memory of each mediasoup worker (getResourceUsage ru_maxrss)',
    labelNames: ['worker_pid'],
    registers,
    async collect() {
      const workers = await usage.read();
      this.reset();
      for (const { pid, maxRssBytes } of workers) this.set({ worker_pid: pid }, maxRssBytes);
    },
  });
}

/** Producers and consumers on the watched workers, kept by mediasoup's observer events. */
class MediaObjects {
  producers = 0;
  consumers = 0;

  watch(worker: Worker): void {
    worker.observer.on('newrouter', (router: Router) => {
      router.observer.on('newtransport', (transport: Transport) => this.#watchTransport(transport));
    });
  }

  #watchTransport(transport: Transport): void {
    // mediasoup emits `close` on an object's observer however it closes (itself, or its
    // transport, router or worker going), so every count made here is unmade.
    transport.observer.on('newproducer', (producer: Producer) => {
      this.producers += 1;
      producer.observer.once('close', () => {
        this.producers -= 1;
      });
    });
    transport.observer.on('newconsumer', (consumer: Consumer) => {
      this.consumers += 1;
      consumer.observer.once('close', () => {
        this.consumers -= 1;
      });
    });
  }
}

/** Reads every worker's resource usage once per scrape, however many metrics ask for it. */
class UsageReader {
  readonly #workers: () => readonly Worker[];
  #pending: Promise<WorkerUsage[]> | null = null;

  constructor(workers: () => readonly Worker[]) {
    this.#workers = workers;
  }

  read(): Promise<WorkerUsage[]> {
    if (!this.#pending) {
      const pending = this.#readAll();
      this.#pending = pending;
      void pending.finally(() => {
        if (this.#pending === pending) this.#pending = null;
      });
    }
    return this.#pending;
  }

  async #readAll(): Promise<WorkerUsage[]> {
    const results = await Promise.all(this.#workers().map((worker) => readUsage(worker)));
    return results.filter((result) => result !== null);
  }
}

/** One worker's usage, or null when it is closing, dead or too slow to answer. */
async function readUsage(worker: Worker): Promise<WorkerUsage | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), USAGE_TIMEOUT_MS);
  });
  try {
    const usage = await Promise.race([worker.getResourceUsage(), timeout]);
    if (usage === null) return null;
    return {
      pid: worker.pid,
      cpuSeconds: (usage.ru_utime + usage.ru_stime) / 1000,
      // Linux reports ru_maxrss in kilobytes.
      maxRssBytes: usage.ru_maxrss * 1024,
    };
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
