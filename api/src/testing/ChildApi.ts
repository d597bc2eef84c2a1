/** The API as a separate OS process, for tests that need to kill one. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { freePort } from '@voice/bus/testing';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export { freePort };

export class ChildApi {
  private constructor(
    readonly child: ChildProcess,
    readonly baseUrl: string,
    readonly dataDir: string,
  ) {}

  static async start(env: Record<string, string>): Promise<ChildApi> {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'voice-child-api-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/main.ts'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        PUBLIC_URL: 'http://app.test',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const api = new ChildApi(child, `http://127.0.0.1:${port}`, dataDir);
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`child API exited with ${child.exitCode}`);
      try {
        if ((await fetch(`${api.baseUrl}/api/health`)).ok) return api;
      } catch {}
      if (Date.now() > deadline) throw new Error('child API did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /**
   * Starts the API expecting it to refuse to start: resolves with its exit code and what it
   * wrote to stderr (killed after `timeoutMs`, exit code null then).
   */
  static async failedStart(
    env: Record<string, string>,
    timeoutMs = 30_000,
  ): Promise<{ code: number | null; stderr: string }> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'voice-child-api-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/main.ts'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        DATA_DIR: dataDir,
        PUBLIC_URL: 'http://app.test',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    clearTimeout(timer);
    rmSync(dataDir, { recursive: true, force: true });
    return { code, stderr };
  }

  /** Kills the process without letting it clean up, as a crash would. */
  async crash(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await new Promise((resolve) => this.child.once('exit', resolve));
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      await new Promise((resolve) => this.child.once('exit', resolve));
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
