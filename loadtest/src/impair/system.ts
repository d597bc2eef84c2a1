/**
 * The system calls the impairment needs: running `ip`, `iptables` and `sysctl` with errors that
 * name the command, and the root check `--impair` makes before anything starts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const NOT_ROOT_MESSAGE = '--impair needs root (network namespaces and iptables)';

/** Throws the one-line refusal when the process is not root; `getuid` is injectable for tests. */
export function requireRoot(getuid: () => number = () => process.getuid?.() ?? -1): void {
  if (getuid() !== 0) throw new Error(NOT_ROOT_MESSAGE);
}

/** Runs a command; a failure says which command and what it printed. */
export async function run(command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')}: ${stderr?.trim() || message}`);
  }
}

/** Runs a command whose failure is expected at times (removing what may already be gone). */
export async function runQuietly(command: string, args: string[]): Promise<void> {
  await run(command, args).catch(() => {});
}

/** The same command inside a network namespace. */
export function runIn(namespace: string, command: string, args: string[]): Promise<string> {
  return run('ip', ['netns', 'exec', namespace, command, ...args]);
}
