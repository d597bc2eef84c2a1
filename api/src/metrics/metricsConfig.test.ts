import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TOKEN = 'metrics-test-Qw8Er2Ty6Ui4Op0As5Df7Gh3Jk';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'voice-metrics-config-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ DATA_DIR: tempDir(), ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('loadConfig() accepted a bad environment');
}

describe('METRICS_* in loadConfig()', () => {
  it('leaves metrics off by default', () => {
    expect(loadConfig({ DATA_DIR: tempDir() }).metrics).toEqual({ port: null, host: '0.0.0.0', token: null });
  });

  it('reads METRICS_PORT, METRICS_HOST and METRICS_TOKEN', () => {
    const env = {
      DATA_DIR: tempDir(),
      METRICS_PORT: '9464',
      METRICS_HOST: '127.0.0.1',
      METRICS_TOKEN: TOKEN,
    };
    expect(loadConfig(env).metrics).toEqual({ port: 9464, host: '127.0.0.1', token: TOKEN });
    // Empty counts as unset, as docker compose passes `${METRICS_PORT:-}`.
    expect(loadConfig({ DATA_DIR: tempDir(), METRICS_PORT: '', METRICS_TOKEN: ' ' }).metrics).toMatchObject({
      port: null,
      token: null,
    });
  });

  it('names METRICS_PORT in one line when it is not a port, or is the app port', () => {
    for (const port of ['abc', '-1', '65536', '94 64', '0x10']) {
      expect(problemsOf({ METRICS_PORT: port }), port).toEqual([
        `METRICS_PORT: must be a whole number from 0 to 65535, got "${port.trim()}"`,
      ]);
    }
    expect(problemsOf({ METRICS_PORT: '8080' })).toEqual([
      'METRICS_PORT: must differ from PORT (8080); METRICS_TOKEN serves /metrics on PORT',
    ]);
  });

  it('names METRICS_TOKEN in one line when it is short, weak or not sendable in a header', () => {
    expect(problemsOf({ METRICS_TOKEN: 'short' })).toEqual([
      'METRICS_TOKEN: must be at least 32 characters (got 5)',
    ]);
    expect(problemsOf({ METRICS_TOKEN: 'ab'.repeat(20) })).toEqual([
      'METRICS_TOKEN: too weak; use a random value (e.g. `openssl rand -hex 32`)',
    ]);
    expect(problemsOf({ METRICS_TOKEN: `${TOKEN} ${TOKEN}` })).toEqual([
      'METRICS_TOKEN: only visible ASCII characters without spaces (it is sent in a header)',
    ]);
  });

  it('stops the API process with that line, no stack trace', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/main.ts'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, DATA_DIR: tempDir(), METRICS_TOKEN: 'too-short', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain('METRICS_TOKEN: must be at least 32 characters (got 9)');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
