/**
 * Removing one impaired network: the processes still in its namespace (a browser), the namespace
 * (which takes the veth pair, its addresses, routes and the namespace's own iptables rules with
 * it), the host's end of the veth if it outlived the namespace, the host iptables rules tagged
 * with the namespace's name, and Chromium's wrapper script. Written once as a list of steps, run
 * either asynchronously (close(), cleanupStale()) or synchronously (the process's exit hook,
 * where nothing asynchronous runs any more).
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { type NetworkNames, RULE_COMMENT_PATTERN } from './names.ts';
import { run, runQuietly } from './system.ts';

const HOST_TABLES = ['nat', 'filter'] as const;

/** `iptables -t TABLE -S` lines tagged for `namespace`, turned into their delete commands. */
export function deleteCommandsFor(
  table: string,
  listing: string,
  matches: (namespace: string) => boolean,
): string[][] {
  const commands: string[][] = [];
  for (const line of listing.split('\n')) {
    const tag = RULE_COMMENT_PATTERN.exec(line);
    if (!line.startsWith('-A ') || !tag || !matches(tag[1] as string)) continue;
    commands.push(['-t', table, '-D', ...line.slice(3).replaceAll('"', '').split(/\s+/)]);
  }
  return commands;
}

export async function tearDown(names: NetworkNames): Promise<void> {
  const pids = await run('ip', ['netns', 'pids', names.namespace]).catch(() => '');
  killAll(pids);
  await runQuietly('ip', ['netns', 'del', names.namespace]);
  await runQuietly('ip', ['link', 'del', names.hostInterface]);
  for (const table of HOST_TABLES) {
    const listing = await run('iptables', ['-t', table, '-S']).catch(() => '');
    for (const command of deleteCommandsFor(table, listing, (tag) => tag === names.namespace)) {
      await runQuietly('iptables', command);
    }
  }
  rmSync(names.wrapperScript, { force: true });
}

export function tearDownSync(names: NetworkNames): void {
  const quietly = (command: string, args: string[]): string => {
    try {
      return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return '';
    }
  };
  killAll(quietly('ip', ['netns', 'pids', names.namespace]));
  quietly('ip', ['netns', 'del', names.namespace]);
  quietly('ip', ['link', 'del', names.hostInterface]);
  for (const table of HOST_TABLES) {
    const listing = quietly('iptables', ['-t', table, '-S']);
    for (const command of deleteCommandsFor(table, listing, (tag) => tag === names.namespace)) {
      quietly('iptables', command);
    }
  }
  rmSync(names.wrapperScript, { force: true });
}

/** A process left in the namespace would keep it (and the veth) alive: only our browsers run there. */
function killAll(pidList: string): void {
  for (const pid of pidList.split('\n').filter(Boolean)) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
