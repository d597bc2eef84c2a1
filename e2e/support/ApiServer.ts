/**
 * The real API as a child process (`node --import tsx api/src/main.ts`), serving the
 * built web app, with a fresh data directory and mail sent to the test's SMTP listener.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@voice/bus/testing';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STARTUP_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

/** How to start the API. */
export interface ApiServerOptions {
  smtpUrl: string;
  /** The API's output is appended here. */
  logFile: string;
  /** More environment for the API (TURN_SECRET, TURN_URLS, TURN_FORCE_RELAY, CALL_RING_TIMEOUT_MS ...), over the defaults. */
  env?: Record<string, string>;
}

export class ApiServer {
  readonly #child: ChildProcess;
  readonly #dataDir: string;
  readonly url: string;
  #stopped = false;

  private constructor(child: ChildProcess, dataDir: string, url: string) {
    this.#child = child;
    this.#dataDir = dataDir;
    this.url = url;
  }

  /** The API's process id, for tests that hurt its children (e.g. kill a mediasoup worker). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** The API's DATA_DIR, for tests that play the operator (e.g. its own legal texts). */
  get dataDir(): string {
    return this.#dataDir;
  }

  static async start({ smtpUrl, logFile, env: extraEnv }: ApiServerOptions): Promise<ApiServer> {
    // WEB_DIST lets parallel work build and test its own copy of the web app.
    const webDist = process.env.WEB_DIST ?? path.join(REPO_ROOT, 'web', 'dist');
    if (!existsSync(path.join(webDist, 'index.html'))) {
      throw new Error(`${webDist} is missing: run \`npm run build -w web\` before the browser tests`);
    }
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const dataDir = await mkdtemp(path.join(tmpdir(), 'voice-e2e-'));
    await mkdir(path.dirname(logFile), { recursive: true });
    const log = createWriteStream(logFile, { flags: 'a' });

    // DATABASE_URL and REDIS_URL pass through when set (CI); otherwise the API embeds its own.
    // A fresh Redis prefix keeps rate-limit counters of earlier runs out of this one.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      SMTP_URL: smtpUrl,
      MAIL_FROM: 'noreply@voice.test',
      REDIS_PREFIX: `voice-e2e-${randomBytes(4).toString('hex')}:`,
      // Every account of the suite comes from one address; the shipped limits would bite mid-run.
      RATE_LIMIT_FACTOR: '10',
      ...extraEnv,
    };
    // detached: the API leads its own process group, so stop() also reaches anything it spawned.
    const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/main.ts'], {
      cwd: REPO_ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    const server = new ApiServer(child, dataDir, url);
    try {
      await server.#waitForHealth();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  async #waitForHealth(): Promise<void> {
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (this.#child.exitCode !== null || this.#child.signalCode !== null) {
        throw new Error(`The API exited during start-up (code ${this.#child.exitCode}); see the API log`);
      }
      try {
        const response = await fetch(`${this.url}/api/health`);
        if (response.ok) return;
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`The API did not answer GET /api/health within ${STARTUP_TIMEOUT_MS} ms`);
  }

  /** Stops the API's process group (SIGTERM, then SIGKILL) and removes its data directory. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    const pid = this.#child.pid;
    if (pid !== undefined && this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
      signalGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    await rm(this.#dataDir, { recursive: true, force: true });
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
