/**
 * A private PostgreSQL (Debian's server binaries) in a temporary directory on a free loopback
 * port, for tests that lock its tables, use up its connection slots or stop it answering. Only
 * this server is ever locked, filled or paused, never the shared one on 5432. Run as the
 * `postgres` user when the test runs as root (initdb refuses root); stopped by its pid.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@voice/bus/testing';
import pg from 'pg';

const POSTGRES_LIB = '/usr/lib/postgresql';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

export interface PostgresOptions {
  /** The server's max_connections (superuser connections included). */
  maxConnections?: number;
}

export class PostgresProcess {
  #child: ChildProcess;
  #dir: string;
  #output: string[];
  #stopped = false;

  private constructor(
    child: ChildProcess,
    dir: string,
    output: string[],
    readonly port: number,
  ) {
    this.#child = child;
    this.#dir = dir;
    this.#output = output;
  }

  /** Superuser `postgres`, no password, database `postgres`. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** A new database cluster, started and answering. */
  static async start({ maxConnections = 20 }: PostgresOptions = {}): Promise<PostgresProcess> {
    const bin = serverBin();
    const dir = mkdtempSync(path.join(tmpdir(), 'voice-pg-'));
    const data = path.join(dir, 'data');
    const user = process.getuid?.() === 0 ? postgresUser() : undefined;
    if (user) chownSync(dir, user.uid, user.gid);
    // In the directory it owns: the postgres user may not enter the test's working directory.
    const asUser = { cwd: dir, ...(user ? { uid: user.uid, gid: user.gid } : {}) };
    execFileSync(
      path.join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
      { ...asUser, stdio: 'pipe' },
    );
    const port = await freePort();
    const output: string[] = [];
    const child = spawn(
      path.join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `max_connections=${maxConnections}`,
        '-c',
        'superuser_reserved_connections=0',
        // A throwaway cluster: nothing needs to survive a crash.
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
      ],
      { ...asUser, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const keep = (chunk: Buffer) => output.push(chunk.toString());
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const server = new PostgresProcess(child, dir, output, port);
    try {
      await server.#waitUntilAnswering();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /** A plain client of its own (not pooled); the caller ends it. */
  async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url });
    // A connection the server ends (a test's own doing) must not become an unhandled 'error'.
    client.on('error', () => {});
    await client.connect();
    return client;
  }

  /** Stops the server and every backend as SIGSTOP does: connections stay open, nothing answers. */
  pause(): void {
    this.#signal('SIGSTOP');
  }

  resume(): void {
    this.#signal('SIGCONT');
  }

  /** What the server logged, for a failed test's message. */
  get log(): string {
    return this.#output.join('');
  }

  /** Fast shutdown (open connections are ended), then the directory is removed. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    const child = this.#child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // Paused backends would never hear the shutdown.
      this.resume();
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async #waitUntilAnswering(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (this.#child.exitCode !== null) throw new Error(`postgres exited:\n${this.log}`);
      try {
        const client = await this.connect();
        await client.end();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`postgres did not start: ${error}\n${this.log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  #signal(signal: NodeJS.Signals): void {
    for (const pid of this.#pids()) {
      try {
        process.kill(pid, signal);
      } catch (error) {
        // A backend that ended since the list was read.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
  }

  /** The postmaster and its children (backends, checkpointer, …), read from /proc. */
  #pids(): number[] {
    const main = this.#child.pid;
    if (main === undefined || this.#child.exitCode !== null) return [];
    const children = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((name) => {
        try {
          // Field 4 of /proc/PID/stat, after the parenthesised command name.
          const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === main;
        } catch {
          return false;
        }
      })
      .map(Number);
    return [main, ...children];
  }
}

/** The bin directory of the newest PostgreSQL server installed. */
function serverBin(): string {
  const versions = existsSync(POSTGRES_LIB)
    ? readdirSync(POSTGRES_LIB)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const bin = versions.map((version) => path.join(POSTGRES_LIB, version, 'bin')).find(hasServer);
  if (!bin) throw new Error(`no PostgreSQL server under ${POSTGRES_LIB} (apt-get install postgresql)`);
  return bin;
}

function hasServer(bin: string): boolean {
  return existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'postgres'));
}

function postgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}
