// The CLI as a person runs it: --help, usage errors (one line, exit 2), and report/merge exit codes.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureResults } from './results/fixtures.ts';
import type { RunResults } from './results/types.ts';

const workspace = join(dirname(fileURLToPath(import.meta.url)), '..');
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI through npx, npm run, or (quicker, for the rest) its bin script with node. */
function cli(command: 'npx' | 'npm' | 'node', args: string[]) {
  const argv = {
    npx: ['voice-loadtest', ...args],
    npm: ['run', 'loadtest', '--silent', '--', ...args],
    node: [join(workspace, 'bin', 'voice-loadtest.js'), ...args],
  }[command];
  const result = spawnSync(command, argv, { cwd: workspace, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function resultsDir(results: RunResults): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'loadtest-cli-'));
  dirs.push(dir);
  await writeFile(join(dir, 'results.json'), JSON.stringify(results));
  return dir;
}

describe('voice-loadtest', () => {
  it('npx voice-loadtest --help lists the commands, exit 0', () => {
    const { status, stdout } = cli('npx', ['--help']);
    expect(status).toBe(0);
    for (const command of ['run:', 'calls:', 'seed:', 'cleanup:', 'merge:', 'report:'])
      expect(stdout).toContain(command);
  });

  it('npm run loadtest -- run --participants x: one line, exit 2', () => {
    const { status, stderr } = cli('npm', [
      'run',
      '--url',
      'http://127.0.0.1:9',
      '--room',
      'r',
      '--participants',
      'x',
      '--speakers',
      '1',
      '--duration',
      '5s',
    ]);
    expect(status).toBe(2);
    expect(stderr).toBe("voice-loadtest: --participants 'x' is not a whole number\n");
  });

  it('an unreachable deployment is a setup error: one line, exit 2', () => {
    const { status, stderr } = cli('node', ['cleanup', '--url', 'http://127.0.0.1:9', '--secret', 's']);
    expect(status).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^voice-loadtest: /);
  });

  it('report DIR: exit 0 when the SLOs hold, 1 naming the one breached, 2 without results', async () => {
    const dir = await resultsDir(fixtureResults());
    const held = cli('node', ['report', '--no-png', dir]);
    expect(held.status).toBe(0);
    expect(held.stdout).toContain(`report: ${join(dir, 'report.html')}`);
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain('Load lt_7');
    const breached = cli('node', ['report', '--no-png', await resultsDir(fixtureResults({ lossPct: 6 }))]);
    expect(breached.status).toBe(1);
    expect(breached.stdout).toContain('BREACHED lossP95 < 2%: 6%, breached by 4%');
    const missing = cli('node', ['report', '/nonexistent/results']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe('voice-loadtest: no results at /nonexistent/results/results.json\n');
  }, 120_000);

  it('merge: two shards into one report; the same shard twice refused with exit 2', async () => {
    const a = await resultsDir(fixtureResults({ shard: { index: 0, count: 2 }, prefix: 'a' }));
    const b = await resultsDir(fixtureResults({ shard: { index: 1, count: 2 }, prefix: 'b' }));
    const out = join(await mkdtemp(join(tmpdir(), 'loadtest-merged-')), 'merged');
    dirs.push(dirname(out));
    const merged = cli('node', ['merge', a, b, '--out', out, '--no-png']);
    expect(merged.status).toBe(0);
    expect(merged.stdout).toContain('16 participants: 16 joined');
    const mergedResults = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as RunResults;
    expect(mergedResults.participants).toHaveLength(16);
    const twice = cli('node', [
      'merge',
      a,
      await resultsDir(fixtureResults({ shard: { index: 0, count: 2 }, prefix: 'c' })),
    ]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(/^voice-loadtest: .* and .* are both shard 0\/2\n$/);
  }, 120_000);
});
