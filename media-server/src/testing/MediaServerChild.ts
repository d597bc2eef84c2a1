/**
 * `media-server/src/main.ts` as a process of its own, as an operator runs it, for tests that
 * need the real process: its environment, signals, HTTP endpoints and announcements.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@voice/bus/testing';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** MEDIA_SECRET of the processes the tests start (an API run apart in a test needs the same). */
export const TEST_PROCESS_MEDIA_SECRET = 'media-test-Kx7Qm2Wv9Lp4Rt8Zb3Nc6Hf1Jd5Gs0Ya';
const START_TIMEOUT_MS = 30_000;

/** Options of MediaServerChild.start(). */
export interface MediaServerChildOptions {
  redisUrl: string;
  redisPrefix: string;
  /** Its workers' RTC ports; each test file takes its own. */
  rtcPorts: { min: number; max: number };
  /** More settings (METRICS_PORT, MEDIA_MAX_MEMBERS, ...). */
  env?: Record<string, string>;
}

export class MediaServerChild {
  #output = '';

  private constructor(
    readonly child: ChildProcess,
    /** Its MEDIA_PORT (`/rtc` and the health checks), on 127.0.0.1. */
    readonly port: number,
  ) {
    const keep = (chunk: Buffer) => {
      this.#output += chunk;
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /** Starts it on a free MEDIA_PORT; resolves once it announced itself, rejects (and kills it) if it did not. */
  static async start({
    redisUrl,
    redisPrefix,
    rtcPorts,
    env = {},
  }: MediaServerChildOptions): Promise<MediaServerChild> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'media-server/src/main.ts'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        MEDIASOUP_WORKER_BIN: process.env.MEDIASOUP_WORKER_BIN,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: redisPrefix,
        MEDIA_PORT: String(port),
        MEDIA_HOST: '127.0.0.1',
        MEDIA_NUM_WORKERS: '1',
        RTC_MIN_PORT: String(rtcPorts.min),
        RTC_MAX_PORT: String(rtcPorts.max),
        MEDIA_SECRET: TEST_PROCESS_MEDIA_SECRET,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new MediaServerChild(child, port);
    const started = Date.now();
    while (!server.output.includes('announced as')) {
      if (child.exitCode !== null || Date.now() - started > START_TIMEOUT_MS) {
        child.kill('SIGKILL');
        throw new Error(`the media server did not start:\n${server.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return server;
  }

  /** What it wrote so far, stdout and stderr. */
  get output(): string {
    return this.#output;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM (it drains, then exits), and waits for the exit; nothing if it has exited. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    await once(this.child, 'exit');
  }
}
