/** Shared pieces of the benchmarks: start the API as a child process, print and save results. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS_DIR = path.join(REPO_ROOT, 'bench-results');

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * tsx compiles with esbuild's keepNames, which wraps named inner functions in a `__name`
 * helper; functions sent to page.evaluate carry those calls into the page, which lacks it.
 * (Playwright's own test runner compiles without it.) Add it as an init script.
 */
export const KEEP_NAMES_SHIM = 'globalThis.__name = (fn) => fn;';

/** What the API prints on SIGUSR2. */
export interface MemoryReport {
  memory: NodeJS.MemoryUsage;
  sockets: number;
}

export interface RunningApi {
  url: string;
  child: ChildProcess;
  /** Memory after a full garbage collection, as the process itself reports it. */
  memory(): Promise<MemoryReport>;
  stop(): Promise<void>;
}

/** Starts one API process on `port` with `env` added, and waits until it answers. */
export async function startApi(port: number, env: Record<string, string> = {}): Promise<RunningApi> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'api/src/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'voice-bench-')),
      LOG_LEVEL: 'warn',
      // A load test must not be stopped by the per-client limits.
      RATE_LIMIT_FACTOR: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reports: Array<(report: MemoryReport) => void> = [];
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.startsWith('{"memory"')) reports.shift()?.(JSON.parse(line) as MemoryReport);
      else process.stdout.write(`${line}\n`);
      newline = buffered.indexOf('\n');
    }
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('API did not start within 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    child,
    memory: () =>
      new Promise((resolve) => {
        reports.push(resolve);
        child.kill('SIGUSR2');
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Where a benchmark with browsers runs the API: its database, Redis namespace, secret and web build. */
export interface BenchSetting {
  /** DATABASE_URL (default the local PostgreSQL): the server on which voice_bench is made. */
  adminUrl: string;
  /** voice_bench on that server. */
  benchDbUrl: string;
  jwtSecret: string;
  /** WEB_DIST, default web/dist. */
  webDist: string;
  /** The API's environment: voice_bench, a Redis namespace of its own, the secret, the build. */
  env: Record<string, string>;
}

export function benchSetting(): BenchSetting {
  const adminUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const url = new URL(adminUrl);
  url.pathname = '/voice_bench';
  const benchDbUrl = url.toString();
  const jwtSecret = randomUUID() + randomUUID();
  const webDist = process.env.WEB_DIST ?? path.join(REPO_ROOT, 'web', 'dist');
  const env = {
    DATABASE_URL: benchDbUrl,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `bench:${randomUUID()}:`,
    JWT_SECRET: jwtSecret,
    WEB_DIST: webDist,
  };
  return { adminUrl, benchDbUrl, jwtSecret, webDist, env };
}

/** Builds the web app into `webDist` unless it is there already. */
export function ensureWebBuilt(webDist: string): void {
  if (existsSync(path.join(webDist, 'index.html'))) return;
  console.log(`${webDist} is missing: building the web app…`);
  execFileSync('npm', ['run', 'build', '-w', 'web', '--', '--outDir', webDist], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
}

/** Prints `results` and writes them to bench-results/<name>.json. */
export function report(name: string, results: Record<string, unknown>): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  const record = { benchmark: name, at: new Date().toISOString(), ...results };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  console.log(JSON.stringify(record, null, 2));
  console.log(`written to ${path.relative(REPO_ROOT, file)}`);
}

/** Drops and makes again the benchmarks' own database `voice_bench` on the server of `adminUrl`. */
export async function recreateBenchDatabase(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS voice_bench WITH (FORCE)');
  await admin.query('CREATE DATABASE voice_bench');
  await admin.end();
}

/** A process's resident memory in KB, from /proc. */
export const rssKb = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1]);
