/**
 * Removes what impaired networks of dead processes left behind (a run killed with SIGKILL, a
 * crash before close()): their namespaces, host veth ends, host iptables rules and wrapper
 * scripts. Networks of live processes, this one's included, are left alone.
 */
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { NAMESPACE_PATTERN, networkNames } from './names.ts';
import { run } from './system.ts';
import { tearDown } from './teardown.ts';

const HOST_INTERFACE_PATTERN = /^\d+: (vlt(\d+)h(\d+))[@:]/;
const WRAPPER_PATTERN = /^vlt-(\d+)-(\d+)-chromium\.sh$/;

function isDead(pid: number): boolean {
  return !existsSync(`/proc/${pid}`);
}

/** Returns the namespaces' names it removed. */
export async function cleanupStale(): Promise<string[]> {
  const found = new Map<string, { pid: number; index: number }>();
  const remember = (pid: number, index: number) => {
    if (isDead(pid)) found.set(`vlt-${pid}-${index}`, { pid, index });
  };
  for (const line of (await run('ip', ['netns', 'list'])).split('\n')) {
    const match = NAMESPACE_PATTERN.exec(line.split(' ')[0] ?? '');
    if (match) remember(Number(match[1]), Number(match[2]));
  }
  for (const line of (await run('ip', ['-o', 'link', 'show'])).split('\n')) {
    const match = HOST_INTERFACE_PATTERN.exec(line);
    if (match) remember(Number(match[2]), Number(match[3]));
  }
  for (const table of ['nat', 'filter']) {
    for (const match of (await run('iptables', ['-t', table, '-S'])).matchAll(
      /--comment "?vlt-(\d+)-(\d+)\b/g,
    )) {
      remember(Number(match[1]), Number(match[2]));
    }
  }
  for (const file of readdirSync(tmpdir())) {
    const match = WRAPPER_PATTERN.exec(file);
    if (match) remember(Number(match[1]), Number(match[2]));
  }
  for (const { pid, index } of found.values()) await tearDown(networkNames(pid, index));
  return [...found.keys()];
}
