/**
 * What an impaired network leaves behind when its process ends badly: nothing after SIGINT (the
 * exit hook), what cleanupStale() then removes after SIGKILL; and the one-line refusal of a
 * process that is not root, both with an injected uid and from a real unprivileged process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { networkNames } from './names.ts';
import { cleanupStale } from './stale.ts';
import { NOT_ROOT_MESSAGE, requireRoot, run } from './system.ts';

const HOLDER = fileURLToPath(new URL('./testing/holdNetwork.ts', import.meta.url));
/** The nobody user: the refusal must come from the check, not from a failed command. */
const NOBODY = 65534;

function startHolder(index: number, uid?: number): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', HOLDER, String(index)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(uid === undefined ? {} : { uid, gid: NOBODY }),
  });
}

/** Resolves with the namespace's name the holder printed, rejects with what it said when it died. */
function ready(holder: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    holder.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) resolve(output.trim());
    });
    holder.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    holder.once('exit', (code) => reject(new Error(`holder exited with ${code}: ${output}`)));
  });
}

function exited(holder: ChildProcess): Promise<number | null> {
  if (holder.exitCode !== null || holder.signalCode !== null) return Promise.resolve(holder.exitCode);
  return new Promise((resolve) => holder.once('exit', (code) => resolve(code)));
}

async function leftovers(pid: number, index: number): Promise<string[]> {
  const names = networkNames(pid, index);
  const found: string[] = [];
  if ((await run('ip', ['netns', 'list'])).includes(names.namespace)) found.push('namespace');
  if ((await run('ip', ['link'])).includes(names.hostInterface)) found.push('veth');
  if ((await run('iptables', ['-t', 'nat', '-S'])).includes(names.namespace)) found.push('nat rules');
  if ((await run('iptables', ['-S'])).includes(names.namespace)) found.push('filter rules');
  if (existsSync(names.wrapperScript)) found.push('wrapper');
  return found;
}

describe('impaired network lifecycle', () => {
  it('SIGINT leaves nothing behind', async () => {
    const holder = startHolder(0);
    const namespace = await ready(holder);
    expect(namespace).toBe(`vlt-${holder.pid}-0`);
    expect(await leftovers(holder.pid as number, 0)).toEqual(['namespace', 'veth', 'nat rules', 'wrapper']);
    holder.kill('SIGINT');
    expect(await exited(holder)).toBe(130);
    expect(await leftovers(holder.pid as number, 0)).toEqual([]);
  }, 60_000);

  it('cleanupStale() removes what a killed process left, and nothing of a live one', async () => {
    const killed = startHolder(1);
    const live = startHolder(2);
    await Promise.all([ready(killed), ready(live)]);
    killed.kill('SIGKILL');
    await exited(killed);
    expect(await leftovers(killed.pid as number, 1)).toEqual(['namespace', 'veth', 'nat rules', 'wrapper']);
    expect(await cleanupStale()).toContain(`vlt-${killed.pid}-1`);
    expect(await leftovers(killed.pid as number, 1)).toEqual([]);
    expect(await leftovers(live.pid as number, 2)).toEqual(['namespace', 'veth', 'nat rules', 'wrapper']);
    live.kill('SIGTERM');
    expect(await exited(live)).toBe(143);
    expect(await leftovers(live.pid as number, 2)).toEqual([]);
  }, 60_000);

  it('refuses with one line when not root', async () => {
    expect(() => requireRoot(() => 1000)).toThrow(NOT_ROOT_MESSAGE);
    expect(() => requireRoot(() => 0)).not.toThrow();
    const holder = startHolder(3, NOBODY);
    await expect(ready(holder)).rejects.toThrow(`holder exited with 2: ${NOT_ROOT_MESSAGE}\n`);
    expect(await leftovers(holder.pid as number, 3)).toEqual([]);
  }, 60_000);
});
