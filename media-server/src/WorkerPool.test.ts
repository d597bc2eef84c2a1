import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMediaConfig, type MediaConfig } from './config.ts';
import { InvalidStateError, MediaConfigError } from './errors.ts';
import { webRtcListenIps } from './listenIps.ts';
import { opusPacket, opusRtpParameters, RtpSocket } from './testing/rtp.ts';
import type { Logger, Router, Worker } from './types.ts';
import { WorkerPool } from './WorkerPool.ts';

// These tests run the real mediasoup-worker (deploy/install-system-deps.sh worker installs it).
function testConfig(numWorkers: number): MediaConfig {
  return loadMediaConfig({
    MEDIASOUP_WORKER_BIN: process.env.MEDIASOUP_WORKER_BIN,
    MEDIA_NUM_WORKERS: String(numWorkers),
    RTC_MIN_PORT: '42000',
    RTC_MAX_PORT: '42099',
    MEDIA_LISTEN_IP: '127.0.0.1',
    MEDIA_LOG_LEVEL: 'error',
  });
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const record = (...args: unknown[]) => lines.push(args.join(' '));
  return { lines, debug: record, info: record, warn: record, error: record };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const pools: WorkerPool[] = [];
async function createPool(
  numWorkers = 1,
  logger: Logger = recordingLogger(),
  cpuSampleMs?: number,
): Promise<WorkerPool> {
  const pool = await WorkerPool.create(testConfig(numWorkers), { logger, cpuSampleMs });
  pools.push(pool);
  return pool;
}

afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

describe('WorkerPool', () => {
  it("places a new router by each worker's measured CPU: of two that carry the same, on the idler", async () => {
    // Only this test's two samples: one of the pool's own, landing between the burst and the
    // second, would leave the share of the quiet 200 ms after it (a CI run on a slow machine saw 0).
    const pool = await createPool(2, recordingLogger(), 3_600_000);
    const busy = await pool.createRouter();
    const idle = await pool.createRouter();
    expect(pool.pidOf(busy)).not.toBe(pool.pidOf(idle));

    // One voice forwarded to ten listeners on `busy`'s worker, a burst of it between two samples.
    const input = await busy.createPlainTransport({ listenIp: '127.0.0.1', comedia: true, rtcpMux: true });
    const producer = await input.produce({ kind: 'audio', rtpParameters: opusRtpParameters(7001) });
    const sink = await RtpSocket.bind();
    for (let i = 0; i < 10; i++) {
      const output = await busy.createPlainTransport({ listenIp: '127.0.0.1', rtcpMux: true });
      await output.connect({ ip: '127.0.0.1', port: sink.port });
      await output.consume({ producerId: producer.id, rtpCapabilities: busy.rtpCapabilities });
    }
    await pool.sampleCpu();
    for (let sequence = 1; sequence <= 20_000; sequence++) {
      sink.send(opusPacket(sequence, 7001), input.tuple.localPort);
      if (sequence % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    await pool.sampleCpu();
    sink.close();

    const cpuOf = (router: Router) =>
      pool.load.perWorker.find((worker) => worker.pid === pool.pidOf(router))?.cpu ?? Number.NaN;
    expect(sink.packets.length).toBeGreaterThan(0);
    expect(cpuOf(busy)).toBeGreaterThan(cpuOf(idle));
    const next = await pool.createRouter();
    expect(pool.pidOf(next)).toBe(pool.pidOf(idle));
  });

  it('WorkerPool.create() starts one running worker per configured worker, each with its own ports', async () => {
    const pool = await createPool(2);
    const { workers, routers, perWorker } = pool.load;
    expect(workers).toBe(2);
    expect(routers).toBe(0);
    expect(perWorker.map(({ rtcMinPort, rtcMaxPort }) => [rtcMinPort, rtcMaxPort])).toEqual([
      [42000, 42049],
      [42050, 42099],
    ]);
    for (const { pid } of perWorker) expect(isRunning(pid)).toBe(true);
  });

  it('workerPool.createRouter() returns a router with Opus', async () => {
    const pool = await createPool();
    const router = await pool.createRouter();
    const codecs = router.rtpCapabilities.codecs ?? [];
    expect(codecs).toContainEqual(
      expect.objectContaining({ kind: 'audio', mimeType: 'audio/opus', clockRate: 48000, channels: 2 }),
    );
    expect(codecs.some((codec) => codec.kind === 'video')).toBe(false);
    expect(pool.load.routers).toBe(1);
  });

  it('router.createWebRtcTransport() on 127.0.0.1 gives a candidate in the worker port range', async () => {
    const pool = await createPool();
    const router = await pool.createRouter();
    const transport = await router.createWebRtcTransport({
      listenIps: [{ ip: '127.0.0.1' }],
      enableUdp: true,
      enableTcp: true,
      preferUdp: true,
    });
    const udp = transport.iceCandidates.find((candidate) => candidate.protocol === 'udp');
    expect(udp?.ip).toBe('127.0.0.1');
    expect(udp?.port).toBeGreaterThanOrEqual(42000);
    expect(udp?.port).toBeLessThanOrEqual(42099);
    expect(transport.dtlsParameters.fingerprints.length).toBeGreaterThan(0);
  });

  it('router.createWebRtcTransport() accepts webRtcListenIps() for the zero-config 0.0.0.0', async () => {
    const pool = await createPool();
    const router = await pool.createRouter();
    const listenIps = webRtcListenIps({ listenIp: '0.0.0.0', announcedIp: undefined });
    const transport = await router.createWebRtcTransport({ listenIps, enableUdp: true });
    const ips = transport.iceCandidates.map((candidate) => candidate.ip);
    expect(ips).toContain('127.0.0.1');
    expect(ips).not.toContain('0.0.0.0');
  });

  it('workerPool.createRouter() places each router on the least-loaded worker', async () => {
    const pool = await createPool(2);
    // Concurrent calls must spread too, not all land on the worker that looked emptiest first.
    const routers = await Promise.all([1, 2, 3, 4].map(() => pool.createRouter()));
    expect(pool.load.perWorker.map((worker) => worker.routers)).toEqual([2, 2]);

    routers[0]?.close();
    routers[1]?.close();
    expect(pool.load.routers).toBe(2);
    await pool.createRouter();
    await pool.createRouter();
    expect(pool.load.perWorker.map((worker) => worker.routers)).toEqual([2, 2]);
  });

  it('workerPool.createRouter() weighs what each router carries: a busy room outweighs several quiet ones', async () => {
    const pool = await createPool(2);
    const big = await pool.createRouter();
    // The big room's router carries 500 (members and consumers), the others 2 each.
    const weight = (router: Router) => (router === big ? 500 : 2);
    const quiet = [await pool.createRouter({}, [], weight), await pool.createRouter({}, [], weight)];
    const workerOf = (router: Router | undefined) => pool.pidOf(router as Router);
    expect(workerOf(quiet[0])).not.toBe(workerOf(big));
    expect(workerOf(quiet[1])).toBe(workerOf(quiet[0]));
    // Told to avoid the quiet ones' worker (a room's next part), it goes to the other.
    const apart = await pool.createRouter({}, [quiet[0] as Router], weight);
    expect(workerOf(apart)).toBe(workerOf(big));
  });

  it('workerPool.close() closes the routers and the workers, and is idempotent', async () => {
    const pool = await createPool(2);
    const router = await pool.createRouter();
    const pids = pool.load.perWorker.map((worker) => worker.pid);
    let closeEvents = 0;
    pool.on('close', () => closeEvents++);

    pool.close();
    pool.close();

    expect(pool.closed).toBe(true);
    expect(router.closed).toBe(true);
    expect(closeEvents).toBe(1);
    expect(pool.load).toEqual({ workers: 0, routers: 0, perWorker: [] });
    await expect(pool.createRouter()).rejects.toBeInstanceOf(InvalidStateError);
    await expect.poll(() => pids.filter(isRunning), { timeout: 5000 }).toEqual([]);
  });

  it('a killed worker is replaced by a new one on the same ports', async () => {
    const logger = recordingLogger();
    const pool = await createPool(1, logger);
    const router = await pool.createRouter();
    const [before] = pool.load.perWorker;
    if (!before) throw new Error('no worker');

    const died = once(pool, 'workerdied') as Promise<[Worker, Error]>;
    const replaced = once(pool, 'workerreplaced') as Promise<[Worker]>;
    process.kill(before.pid, 'SIGKILL');

    const [deadWorker] = await died;
    expect(deadWorker.pid).toBe(before.pid);
    expect(router.closed).toBe(true);
    const [newWorker] = await replaced;
    expect(newWorker.pid).not.toBe(before.pid);
    expect(pool.load.perWorker).toEqual([{ ...before, pid: newWorker.pid, routers: 0 }]);
    expect(logger.lines.some((line) => line.includes(`${before.pid} died`))).toBe(true);

    const again = await pool.createRouter();
    expect(again.closed).toBe(false);
    expect(pool.load.routers).toBe(1);
  });

  it('a worker that keeps dying young is replaced after a delay, not in a tight loop', async () => {
    const pool = await createPool();
    const killAndTime = async (): Promise<number> => {
      const pid = pool.load.perWorker[0]?.pid;
      if (pid === undefined) throw new Error('no worker');
      const replaced = once(pool, 'workerreplaced');
      const started = performance.now();
      process.kill(pid, 'SIGKILL');
      await replaced;
      return performance.now() - started;
    };
    // The first early death is replaced at once, the second waits about a second.
    expect(await killAndTime()).toBeLessThan(900);
    expect(await killAndTime()).toBeGreaterThanOrEqual(900);
    expect(pool.load.workers).toBe(1);
  });

  it('WorkerPool.create() names MEDIASOUP_WORKER_BIN when the binary is missing', async () => {
    const config = { ...testConfig(1), workerBin: '/nonexistent/mediasoup-worker' };
    const error = await WorkerPool.create(config).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaConfigError);
    expect((error as MediaConfigError).problems[0]).toMatch(/^MEDIASOUP_WORKER_BIN: /);
  });

  it('WorkerPool.create() refuses a second worker binary in the same process', async () => {
    await createPool();
    // mediasoup binds the binary once per process; another path would be silently ignored.
    const config = { ...testConfig(1), workerBin: '/bin/true' };
    await expect(WorkerPool.create(config)).rejects.toBeInstanceOf(InvalidStateError);
  });
});
