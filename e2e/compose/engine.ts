/**
 * What the compose and swarm tests share on this machine: the Docker engine and the offline test
 * images (engine.sh), the dockerd it may have started, and the tests' copy of coturn's config.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Runs engine.sh with its output on ours; it installs, starts and builds only what is missing.
 * When it starts dockerd, the pid goes to `stateDir/dockerd.pid` (see stopStartedDockerd).
 */
export function prepareEngine(stateDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(import.meta.dirname, 'engine.sh')], {
      env: { ...process.env, VOICE_TEST_STATE: stateDir },
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`engine.sh exited ${code}`))));
  });
}

/**
 * Stops the dockerd engine.sh started for this run (and only if that process is still a
 * dockerd); a daemon that was running before is left alone. Returns whether it stopped one.
 */
export async function stopStartedDockerd(stateDir: string): Promise<boolean> {
  const pidFile = path.join(stateDir, 'dockerd.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(await readFile(pidFile, 'utf8'));
  const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
  if (comm.trim() !== 'dockerd') return false;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 30_000;
  while (existsSync(`/proc/${pid}`) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return true;
}

/**
 * The tests' copy of coturn's config: the shipped one plus loopback-only listening and relay
 * addresses on the test's ports, and loopback peers allowed (the browsers and the media
 * servers' ports are all on 127.0.0.1). The shipped file keeps loopback denied.
 */
export async function coturnTestConfig(
  turnPort: number,
  relayPorts: { min: number; max: number },
): Promise<string> {
  const shipped = await readFile(path.join(REPO_ROOT, 'coturn/turnserver.conf'), 'utf8');
  return [
    shipped,
    '# compose and swarm tests only',
    'listening-ip=127.0.0.1',
    'relay-ip=127.0.0.1',
    `listening-port=${turnPort}`,
    `min-port=${relayPorts.min}`,
    `max-port=${relayPorts.max}`,
    'allow-loopback-peers',
    'allowed-peer-ip=127.0.0.1',
    '',
  ].join('\n');
}
