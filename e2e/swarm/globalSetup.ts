/**
 * Brings deploy/swarm/stack.yml up for the swarm test, as an operator would on a one-node swarm:
 * the engine and the offline test images (engine.sh, shared with the compose test), the app and
 * media-server images built from deploy/Dockerfile (the compose test's layer cache makes that a
 * few seconds after it), `docker swarm init` when this engine is in no swarm, the secrets as
 * Docker secrets, `docker stack deploy`, every service converged and healthy, HTTPS answering
 * through Caddy. The returned teardown leaves the engine as it was found: the stack, its secrets,
 * configs, volumes and network removed, the swarm left if this run made it, dockerd stopped if
 * engine.sh started it. What the spec needs goes to a state file named in SWARM_TEST_STATE.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@voice/bus/testing';
import { coturnTestConfig, prepareEngine, stopStartedDockerd } from '../compose/engine.ts';
import { buildAppImages } from '../compose/images.ts';
import { COTURN_IMAGE } from '../compose/state.ts';
import {
  docker,
  RTC_PORTS,
  SECRET_NAMES,
  SECRETS_PREFIX,
  STACK_FILE,
  STACK_NAME,
  type SwarmTestState,
  serviceLogs,
  TURN_RELAY_PORTS,
  waitConverged,
} from './SwarmStack.ts';

const OUTPUT_DIR = path.resolve(import.meta.dirname, '../test-results/swarm');

function log(message: string): void {
  console.log(`[swarm ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/** Whether this engine is a swarm manager already (then the test only adds and removes its stack). */
async function swarmState(): Promise<string> {
  return (await docker(['info', '--format', '{{.Swarm.LocalNodeState}}'])).trim();
}

async function removeStack(): Promise<void> {
  await docker(['stack', 'rm', STACK_NAME]).catch(() => '');
  // `stack rm` returns at once; the containers, then the network, go after it.
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const left = await docker([
      'ps',
      '--all',
      '--quiet',
      '--filter',
      `label=com.docker.stack.namespace=${STACK_NAME}`,
    ]);
    const networks = await docker([
      'network',
      'ls',
      '--quiet',
      '--filter',
      `label=com.docker.stack.namespace=${STACK_NAME}`,
    ]);
    if (!left.trim() && !networks.trim()) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const volumes = (
    await docker(['volume', 'ls', '--quiet', '--filter', `label=com.docker.stack.namespace=${STACK_NAME}`])
  )
    .split('\n')
    .filter(Boolean);
  if (volumes.length > 0) await docker(['volume', 'rm', '--force', ...volumes]).catch(() => '');
  const secrets = (await docker(['secret', 'ls', '--quiet', '--filter', `name=${SECRETS_PREFIX}`]))
    .split('\n')
    .filter(Boolean);
  if (secrets.length > 0) await docker(['secret', 'rm', ...secrets]).catch(() => '');
  const configs = (await docker(['config', 'ls', '--quiet', '--filter', `name=${SECRETS_PREFIX}`]))
    .split('\n')
    .filter(Boolean);
  if (configs.length > 0) await docker(['config', 'rm', ...configs]).catch(() => '');
}

/** Waits until the app answers through Caddy: its readiness, and the page. */
async function waitForHttps(baseUrl: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await fetch(`${baseUrl}/api/health/ready`).then(
      (response) => response.status,
      (error: Error) => `${error.message} ${(error.cause as Error | undefined)?.message ?? ''}`,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${baseUrl}/api/health/ready answered ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const started = Date.now();
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'voice-swarm-test-'));
  await mkdir(OUTPUT_DIR, { recursive: true });
  let initialisedSwarm = false;
  let deployed = false;

  const teardown = async () => {
    const since = Date.now();
    if (deployed) {
      await writeFile(path.join(OUTPUT_DIR, 'services.log'), await serviceLogs()).catch(() => {});
    }
    await removeStack().catch((error) => console.error(error));
    if (initialisedSwarm) {
      await docker(['swarm', 'leave', '--force']).catch((error) => console.error(error));
      log('left the swarm this test made');
    }
    if (await stopStartedDockerd(runDir)) log('stopped the dockerd this test started');
    await rm(runDir, { recursive: true, force: true });
    log(`cleaned up in ${Math.round((Date.now() - since) / 1000)} s`);
  };

  try {
    await prepareEngine(runDir);
    await buildAppImages(log);
    if ((await swarmState()) === 'inactive') {
      await docker(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
      initialisedSwarm = true;
      log('docker swarm init (one node, on 127.0.0.1)');
    } else {
      log(`this engine is in a swarm already (${await swarmState()}): only the test's stack is added`);
    }
    // Leftovers of an interrupted run.
    await removeStack();

    for (const name of SECRET_NAMES) {
      const secretFile = path.join(runDir, name);
      await writeFile(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
      await docker(['secret', 'create', `${SECRETS_PREFIX}${name}`, secretFile]);
      await rm(secretFile);
    }

    const ports = {
      https: await freePort(),
      turn: await freePort(),
      redis: await freePort(),
      mediaA: await freePort(),
      mediaB: await freePort(),
    };
    const turnConfig = path.join(runDir, 'turnserver.conf');
    await writeFile(turnConfig, await coturnTestConfig(ports.turn, TURN_RELAY_PORTS));
    const baseUrl = `https://localhost:${ports.https}`;
    const media = {
      'media-a': { url: `ws://127.0.0.1:${ports.mediaA}/rtc`, port: ports.mediaA },
      'media-b': { url: `ws://127.0.0.1:${ports.mediaB}/rtc`, port: ports.mediaB },
    };
    const deployEnv: Record<string, string> = {
      SECRETS_PREFIX,
      APP_IMAGE: 'voice-test/app:current',
      MEDIA_IMAGE: 'voice-test/media-server:current',
      CADDY_IMAGE: 'voice-test/caddy:2.6',
      POSTGRES_IMAGE: 'voice-test/postgres:15',
      REDIS_IMAGE: 'voice-test/redis:7',
      COTURN_IMAGE,
      CADDY_SITE: 'localhost',
      HTTPS_PORT: String(ports.https),
      PUBLIC_URL: baseUrl,
      REDIS_PUBLISHED_PORT: String(ports.redis),
      MEDIA_A_ANNOUNCED_IP: '127.0.0.1',
      MEDIA_B_ANNOUNCED_IP: '127.0.0.1',
      // One member fills a media server: a room of two sits on both.
      MEDIA_MAX_MEMBERS: '1',
      MEDIA_A_PORT: String(ports.mediaA),
      MEDIA_A_PUBLIC_URL: media['media-a'].url,
      MEDIA_A_RTC_MIN: String(RTC_PORTS['media-a'].min),
      MEDIA_A_RTC_MAX: String(RTC_PORTS['media-a'].max),
      MEDIA_B_PORT: String(ports.mediaB),
      MEDIA_B_PUBLIC_URL: media['media-b'].url,
      MEDIA_B_RTC_MIN: String(RTC_PORTS['media-b'].min),
      MEDIA_B_RTC_MAX: String(RTC_PORTS['media-b'].max),
      TURN_CONFIG: turnConfig,
      TURN_REALM: 'localhost',
      TURN_URLS: `turn:127.0.0.1:${ports.turn}?transport=udp`,
      // Every page's media goes through coturn: the relay is part of what is proven.
      TURN_FORCE_RELAY: 'true',
      LOG_LEVEL: process.env.SWARM_LOG_LEVEL ?? 'info',
    };
    const deploying = Date.now();
    await docker(['stack', 'deploy', '--resolve-image', 'never', '--compose-file', STACK_FILE, STACK_NAME], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...deployEnv },
    });
    deployed = true;
    await waitConverged();
    log(`deployed and healthy in ${Math.round((Date.now() - deploying) / 1000)} s`);

    // Caddy's internal CA for `localhost`: the compose test checks its chain; here Node and
    // Chromium skip the check (Chromium with --ignore-certificate-errors).
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    await waitForHttps(baseUrl);

    const state: SwarmTestState = { baseUrl, media, turnPort: ports.turn, runDir, deployEnv };
    const stateFile = path.join(runDir, 'state.json');
    await writeFile(stateFile, JSON.stringify(state, null, 2));
    process.env.SWARM_TEST_STATE = stateFile;
    log(`stack up behind ${baseUrl} after ${Math.round((Date.now() - started) / 1000)} s`);
    return teardown;
  } catch (error) {
    await teardown();
    throw error;
  }
}
