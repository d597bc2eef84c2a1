/**
 * The swarm test's stack: deploy/swarm/stack.yml deployed with `docker stack deploy` under a name
 * of its own, driven with Debian's docker client as an operator would type it. What globalSetup.ts
 * hands the spec goes through a JSON file named in SWARM_TEST_STATE.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DOCKER } from '../compose/ComposeProject.ts';

const run = promisify(execFile);

/** The test's stack; fixed, so a run removes the leftovers of an interrupted one. */
export const STACK_NAME = 'voice_swarm_test';

/** Its Docker secrets and configs are named with this prefix (SECRETS_PREFIX of stack.yml). */
export const SECRETS_PREFIX = 'voice_swarm_test_';

/** The secrets stack.yml expects, each created by the test from random bytes. */
export const SECRET_NAMES = [
  'jwt_secret',
  'media_secret',
  'turn_secret',
  'postgres_password',
  'redis_password',
];

/** Every service of the stack with the replicas it runs. */
export const SERVICES = {
  caddy: 1,
  api: 2,
  'media-a': 1,
  'media-b': 1,
  coturn: 1,
  postgres: 1,
  redis: 1,
} as const;

export type ServiceName = keyof typeof SERVICES;

/**
 * The media servers' and coturn's UDP ranges in the test (host network), away from the compose
 * test's (39000-39029, 38100-38199) and the other tests' (31600-31799, 40000-49999).
 */
export const RTC_PORTS = {
  'media-a': { min: 37000, max: 37049 },
  'media-b': { min: 37050, max: 37099 },
} as const;
export const TURN_RELAY_PORTS = { min: 37100, max: 37199 } as const;

export interface SwarmTestState {
  /** PUBLIC_URL: Caddy, https://localhost:<port>, with Caddy's internal CA for `localhost`. */
  baseUrl: string;
  /** Each media server's /rtc as the pages reach it, and its port (host network). */
  media: Record<'media-a' | 'media-b', { url: string; port: number }>;
  turnPort: number;
  runDir: string;
  /** The environment `docker stack deploy` got (no secrets: those are Docker secrets). */
  deployEnv: Record<string, string>;
}

export function loadState(): SwarmTestState {
  const file = process.env.SWARM_TEST_STATE;
  if (!file) throw new Error('SWARM_TEST_STATE is not set: run with e2e/swarm.config.ts');
  return JSON.parse(readFileSync(file, 'utf8')) as SwarmTestState;
}

/** `docker ARGS` with Debian's client; resolves with stdout, throws with stderr. */
export async function docker(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const { stdout } = await run(DOCKER, args, {
    env: options.env ?? { PATH: process.env.PATH, HOME: process.env.HOME },
    cwd: options.cwd,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 600_000,
  }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`docker ${args.join(' ')} failed: ${error.stderr || error.message}`);
  });
  return stdout;
}

export const serviceName = (service: ServiceName) => `${STACK_NAME}_${service}`;

/** Running tasks of one service: container id and whether its health check passes. */
export async function runningTasks(service: ServiceName): Promise<{ container: string; healthy: boolean }[]> {
  const ids = (
    await docker(['ps', '--quiet', '--filter', `label=com.docker.swarm.service.name=${serviceName(service)}`])
  )
    .split('\n')
    .filter(Boolean);
  if (ids.length === 0) return [];
  // A container may go between the two calls (an update, a scale-down): then it is not running.
  const states = JSON.parse(await docker(['inspect', ...ids]).catch(() => '[]')) as {
    Id: string;
    State: { Status: string; Health?: { Status: string } };
  }[];
  return states
    .filter(({ State }) => State.Status === 'running')
    .map(({ Id, State }) => ({
      container: Id,
      healthy: State.Health === undefined || State.Health.Status === 'healthy',
    }));
}

/**
 * Waits until every service runs its replicas, each task's container healthy (or without a
 * check), and only those; throws with the services' states and logs after `timeoutMs`.
 */
export async function waitConverged(
  services: Partial<Record<ServiceName, number>> = SERVICES,
  timeoutMs = 180_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await Promise.all(
      Object.entries(services).map(async ([service, replicas]) => {
        const tasks = await runningTasks(service as ServiceName);
        return {
          service,
          replicas,
          healthy: tasks.filter((task) => task.healthy).length,
          running: tasks.length,
        };
      }),
    );
    if (counts.every(({ replicas, healthy, running }) => healthy === replicas && running === replicas))
      return;
    if (Date.now() > deadline) {
      throw new Error(
        `the stack did not converge within ${timeoutMs} ms: ${JSON.stringify(counts)}\n${await docker([
          'stack',
          'ps',
          '--no-trunc',
          STACK_NAME,
        ]).catch((error: Error) => error.message)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The last lines of every service's log, for the test's output directory. */
export async function serviceLogs(lines = 300): Promise<string> {
  const parts: string[] = [];
  for (const service of Object.keys(SERVICES)) {
    const log = await run(
      DOCKER,
      [
        'service',
        'logs',
        '--no-task-ids',
        '--timestamps',
        '--tail',
        String(lines),
        serviceName(service as ServiceName),
      ],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    ).then(
      ({ stdout, stderr }) => `${stdout}${stderr}`,
      (error: Error) => error.message,
    );
    parts.push(`===== ${service}\n${log}`);
  }
  return parts.join('\n');
}

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const STACK_FILE = path.join(REPO_ROOT, 'deploy/swarm/stack.yml');
