/**
 * MEDIA_SRTP_LIB_DIR (by default where `install-system-deps.sh fast-srtp` puts libsrtp2 rebuilt
 * on OpenSSL): the real workers load libsrtp2 from that directory, not the system's, and still
 * answer (bench's dtls.test and every browser test carry media through the default one). A file
 * of its own: the library is chosen once a process, when mediasoup loads.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAST_SRTP_DIR, loadMediaConfig } from './config.ts';
import { webRtcListenIps } from './listenIps.ts';
import { WorkerPool } from './WorkerPool.ts';

const SYSTEM_SRTP = '/lib/x86_64-linux-gnu/libsrtp2.so.1';
const dir = mkdtempSync(path.join(tmpdir(), 'srtp-lib-'));
// Any libsrtp2.so.1 shows where the worker took it from; the fast build when installed.
const FAST = path.join(FAST_SRTP_DIR, 'libsrtp2.so.1');
copyFileSync(existsSync(FAST) ? FAST : SYSTEM_SRTP, path.join(dir, 'libsrtp2.so.1'));
const pools: WorkerPool[] = [];

afterAll(async () => {
  for (const pool of pools) await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The shared libraries a process has mapped. */
function mappedLibraries(pid: number): string[] {
  return readFileSync(`/proc/${pid}/maps`, 'utf8')
    .split('\n')
    .map((line) => line.split(/\s+/)[5] ?? '')
    .filter((file) => file.includes('libsrtp2'));
}

describe('the workers’ libsrtp2', () => {
  it('comes from MEDIA_SRTP_LIB_DIR, and the worker serves with it', async () => {
    const config = loadMediaConfig({
      MEDIASOUP_WORKER_BIN: process.env.MEDIASOUP_WORKER_BIN,
      MEDIA_SRTP_LIB_DIR: dir,
      MEDIA_NUM_WORKERS: '1',
      RTC_MIN_PORT: '42300',
      RTC_MAX_PORT: '42349',
      MEDIA_LISTEN_IP: '127.0.0.1',
      MEDIA_LOG_LEVEL: 'error',
    });
    const pool = await WorkerPool.create(config);
    pools.push(pool);
    const [worker] = pool.workers;
    expect(worker).toBeDefined();
    if (!worker) return;
    expect(mappedLibraries(worker.pid)).toEqual(expect.arrayContaining([path.join(dir, 'libsrtp2.so.1')]));
    expect(
      mappedLibraries(worker.pid).some((file) => file.startsWith('/lib') || file.startsWith('/usr/lib')),
    ).toBe(false);
    // The worker answers with the library in place: a router and a WebRTC transport with SRTP.
    const router = await worker.createRouter({
      mediaCodecs: [{ kind: 'audio', mimeType: 'audio/opus', clockRate: 48000, channels: 2 }],
    });
    const transport = await router.createWebRtcTransport({ listenIps: webRtcListenIps(config) });
    expect(transport.dtlsParameters.fingerprints.length).toBeGreaterThan(0);
    transport.close();
    router.close();
  });
});
