/**
 * A media server run apart, as an operator runs one beside an API with MEDIA_SERVER=external:
 * `node --import tsx media-server/src/main.ts` on a port of its own, with its own RTC port
 * range, announcing itself on the API's Redis (same REDIS_PREFIX) and checking room tokens
 * with the API's MEDIA_SECRET.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '@voice/bus/testing';
import { REPO_ROOT } from './ApiServer.ts';

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

/** How to start one media server. */
export interface MediaServerOptions {
  /** The API's REDIS_URL and REDIS_PREFIX. */
  redisUrl: string;
  redisPrefix: string;
  /** The API's MEDIA_SECRET. */
  secret: string;
  /** Its RTC (UDP/TCP) ports, apart from every other media server's. */
  rtcPorts: { min: number; max: number };
  /** Its output is appended here. */
  logFile: string;
  /** More settings (MEDIA_MAX_MEMBERS, ...). */
  env?: Record<string, string>;
}

export class MediaServerProcess {
  readonly #child: ChildProcess;
  #stopped = false;

  private constructor(
    child: ChildProcess,
    /** Where browsers reach its `/rtc` (what it announces). */
    readonly url: string,
    /** Its id, as it announces it (random per start). */
    readonly id: string,
  ) {
    this.#child = child;
  }

  /** The web origin of its `/rtc`, as a Content-Security-Policy names it. */
  get origin(): string {
    return new URL(this.url).origin;
  }

  static async start({
    redisUrl,
    redisPrefix,
    secret,
    rtcPorts,
    logFile,
    env = {},
  }: MediaServerOptions): Promise<MediaServerProcess> {
    const port = await freePort();
    const url = `ws://127.0.0.1:${port}/rtc`;
    await mkdir(path.dirname(logFile), { recursive: true });
    const log = createWriteStream(logFile, { flags: 'a' });
    // detached: it leads its own process group, so stop() also reaches its mediasoup workers.
    const child = spawn(process.execPath, ['--import', 'tsx', 'media-server/src/main.ts'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: redisPrefix,
        MEDIA_SECRET: secret,
        MEDIA_PORT: String(port),
        MEDIA_HOST: '127.0.0.1',
        MEDIA_PUBLIC_URL: url,
        MEDIA_NUM_WORKERS: '1',
        RTC_MIN_PORT: String(rtcPorts.min),
        RTC_MAX_PORT: String(rtcPorts.max),
        ...env,
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    try {
      const id = await waitForHealth(child, port);
      return new MediaServerProcess(child, url, id);
    } catch (error) {
      signalGroup(child, 'SIGKILL');
      throw error;
    }
  }

  /** Resolves when the node process has exited (by itself, say after a drain), with its code. */
  exited(): Promise<number | null> {
    const child = this.#child;
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
    return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** The node process only (its workers notice and end), as a crash or `kill -9` would. */
  kill(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }

  /** Stops its process group (SIGTERM, then SIGKILL). Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
      // A stopped (SIGSTOP) server must run again to hear SIGTERM.
      signalGroup(this.#child, 'SIGCONT');
      signalGroup(this.#child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(this.#child, 'SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    // Whatever outlived a killed node process (its workers) goes too.
    signalGroup(this.#child, 'SIGKILL');
  }
}

/** Waits until its `/health` answers; resolves its id. */
async function waitForHealth(child: ChildProcess, port: number): Promise<string> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`The media server exited during start-up (code ${child.exitCode}); see its log`);
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      if (response.ok) return ((await response.json()) as { id: string }).id;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`The media server did not answer GET /health within ${STARTUP_TIMEOUT_MS} ms`);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}
