/**
 * Brings the self-hosting stack up for the compose test, as an operator would, on test images:
 * the engine and the voice-test/* images (engine.sh, cached between runs), a .env with free
 * high ports, Caddy's internal CA and random secrets, `docker-compose up -d --build`, every
 * health check, and HTTPS answering through Caddy. What the spec needs goes to a state file
 * named in COMPOSE_TEST_STATE; NODE_EXTRA_CA_CERTS makes the workers' fetch trust Caddy's CA.
 * The returned teardown removes the project's containers, volumes and networks (the cached
 * images stay) and stops dockerd if engine.sh started it.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect, type DetailedPeerCertificate } from 'node:tls';
import { promisify } from 'node:util';
import { freePort } from '@voice/bus/testing';
import { ComposeProject, DOCKER } from './ComposeProject.ts';
import { coturnTestConfig, prepareEngine, stopStartedDockerd } from './engine.ts';
import {
  COMPOSE_NET,
  COTURN_IMAGE,
  type ComposeTestState,
  PROJECT_NAME,
  RTC_PORTS,
  SERVICES,
  TURN_RELAY_PORTS,
} from './state.ts';

const run = promisify(execFile);
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const OUTPUT_DIR = path.resolve(import.meta.dirname, '../test-results/compose');

function log(message: string): void {
  console.log(`[compose ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

const secret = () => randomBytes(32).toString('hex');

/** The test's .env: test images, free ports, Caddy's internal CA, every call through coturn. */
function envFile(ports: {
  https: number;
  http: number;
  app: number;
  turn: number;
  prometheus: number;
  media: number;
}): string {
  const vars: Record<string, string> = {
    APP_IMAGE: 'voice-test/app:current',
    MEDIA_IMAGE: 'voice-test/media-server:current',
    NODE_IMAGE: 'voice-test/node:20',
    POSTGRES_IMAGE: 'voice-test/postgres:15',
    REDIS_IMAGE: 'voice-test/redis:7',
    COTURN_IMAGE,
    CADDY_IMAGE: 'voice-test/caddy:2.6',
    PROMETHEUS_IMAGE: 'voice-test/prometheus:2.42',
    PROMETHEUS_PORT: String(ports.prometheus),
    PUBLIC_URL: `https://localhost:${ports.https}`,
    HTTPS_PORT: String(ports.https),
    HTTP_PORT: String(ports.http),
    APP_PORT: String(ports.app),
    CADDY_TLS: 'internal',
    POSTGRES_PASSWORD: secret(),
    JWT_SECRET: secret(),
    MEDIA_SECRET: secret(),
    MEDIA_PORT: String(ports.media),
    COMPOSE_NET,
    TURN_SECRET: secret(),
    TURN_REALM: 'localhost',
    TURN_URLS: `turn:127.0.0.1:${ports.turn}?transport=udp`,
    TURN_FORCE_RELAY: 'true',
    MEDIA_ANNOUNCED_IP: '127.0.0.1',
    RTC_MIN_PORT: String(RTC_PORTS.min),
    RTC_MAX_PORT: String(RTC_PORTS.max),
    MEDIA_NUM_WORKERS: '1',
  };
  return `${Object.entries(vars)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n')}\n`;
}

/** Builds on this machine need the host's network (dockerd runs without NAT); coturn gets the test config. */
function overrideFile(coturnConfigPath: string): string {
  return `services:
  app:
    build:
      network: host
      # Marks the test's app images, so the teardown can drop the outdated ones a rebuild untags.
      labels:
        voice-test.image: app
  media-server:
    build:
      network: host
      labels:
        voice-test.image: app
  coturn:
    volumes:
      - ${coturnConfigPath}:/etc/coturn/turnserver.conf:ro
      - ${path.join(REPO_ROOT, 'coturn/entrypoint.sh')}:/etc/coturn/voice-entrypoint.sh:ro
`;
}

/** Caddy's internal root, once Caddy has made it (on its first start, into the caddy-data volume). */
async function caddyRoot(project: ComposeProject): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pem = await project
      .compose(['exec', '-T', 'caddy', 'cat', '/data/caddy/pki/authorities/local/root.crt'])
      .then((out) => out.toString())
      .catch(() => '');
    if (pem.includes('BEGIN CERTIFICATE')) return pem;
    if (Date.now() > deadline) throw new Error(`Caddy made no internal CA:\n${await project.logs(50)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * The certificates Caddy presents on `port`, verified against `rootPem` (so this also proves the
 * TLS setup), with the root itself: base64 SHA-256 of each SubjectPublicKeyInfo, for Chromium's
 * --ignore-certificate-errors-spki-list, which matches the chain the server sends.
 */
async function servedChainSpki(port: number, rootPem: string): Promise<{ spki: string[]; alpn: string }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await new Promise((resolve, reject) => {
        const socket = connect(
          {
            host: '127.0.0.1',
            port,
            servername: 'localhost',
            ca: rootPem,
            ALPNProtocols: ['h2', 'http/1.1'],
          },
          () => {
            const chain: Buffer[] = [];
            let cert: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
            while (cert?.raw && !chain.some((raw) => raw.equals(cert?.raw as Buffer))) {
              chain.push(cert.raw);
              cert = cert.issuerCertificate;
            }
            chain.push(new X509Certificate(rootPem).raw);
            const spki = chain.map((raw) =>
              createHash('sha256')
                .update(new X509Certificate(raw).publicKey.export({ type: 'spki', format: 'der' }))
                .digest('base64'),
            );
            const alpn = socket.alpnProtocol || 'none';
            socket.end();
            resolve({ spki: [...new Set(spki)], alpn });
          },
        );
        socket.setTimeout(5000, () => socket.destroy(new Error('TLS handshake timed out')));
        socket.on('error', reject);
      });
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** Waits until the app answers through Caddy (Caddy answers 502 while the app is still starting). */
async function waitForHttps(baseUrl: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await fetch(baseUrl).then(
      (response) => response.status,
      (error: Error) => error.message,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${baseUrl} answered ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const started = Date.now();
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'voice-compose-test-'));
  await mkdir(OUTPUT_DIR, { recursive: true });
  let project: ComposeProject | undefined;

  const teardown = async () => {
    const since = Date.now();
    if (project) {
      await writeFile(path.join(OUTPUT_DIR, 'compose.log'), await project.logs(2000)).catch(() => {});
      await project.compose(['down', '--volumes', '--remove-orphans', '--timeout', '20']).catch((error) => {
        console.error(error);
      });
      await run(DOCKER, ['image', 'rm', 'voice-test/app:next']).catch(() => {});
      // Earlier builds of voice-test/app:current (untagged by this run's build); the layer cache stays.
      await run(DOCKER, ['image', 'prune', '--force', '--filter', 'label=voice-test.image=app']).catch(
        () => {},
      );
    }
    if (await stopStartedDockerd(runDir)) log('stopped the dockerd this test started');
    await rm(runDir, { recursive: true, force: true });
    log(`cleaned up in ${Math.round((Date.now() - since) / 1000)} s`);
  };

  try {
    await prepareEngine(runDir);
    log(`engine and test images ready after ${Math.round((Date.now() - started) / 1000)} s`);

    const ports = {
      https: await freePort(),
      http: await freePort(),
      app: await freePort(),
      turn: await freePort(),
      prometheus: await freePort(),
      media: await freePort(),
    };
    const files = {
      repoRoot: REPO_ROOT,
      envFile: path.join(runDir, 'test.env'),
      overrideFile: path.join(runDir, 'docker-compose.test.yml'),
    };
    const coturnConfigPath = path.join(runDir, 'turnserver.conf');
    await writeFile(files.envFile, envFile(ports), { mode: 0o600 });
    await writeFile(coturnConfigPath, await coturnTestConfig(ports.turn, TURN_RELAY_PORTS), { mode: 0o644 });
    await writeFile(files.overrideFile, overrideFile(coturnConfigPath));
    project = new ComposeProject(PROJECT_NAME, files);
    // Leftovers of an interrupted run under the same project name.
    await project.compose(['down', '--volumes', '--remove-orphans', '--timeout', '5']);

    const building = Date.now();
    log('docker-compose up -d --build');
    await project.compose(['up', '-d', '--build']);
    log(`built and started in ${Math.round((Date.now() - building) / 1000)} s`);
    await project.waitHealthy(SERVICES);

    const rootPem = await caddyRoot(project);
    // Caddy's root added to what Node trusts here already (a TLS-inspecting proxy's CA, say).
    const rootFile = path.join(runDir, 'trusted.crt');
    const trusted = process.env.NODE_EXTRA_CA_CERTS;
    const already = trusted && existsSync(trusted) ? await readFile(trusted, 'utf8') : '';
    await writeFile(rootFile, `${already}\n${rootPem}`);
    const { spki, alpn } = await servedChainSpki(ports.https, rootPem);
    const baseUrl = `https://localhost:${ports.https}`;
    // For this process's fetch below and every worker's (they inherit the environment).
    process.env.NODE_EXTRA_CA_CERTS = rootFile;
    await waitForHttpsIn(baseUrl, rootFile);

    const state: ComposeTestState = {
      baseUrl,
      httpUrl: `http://localhost:${ports.http}`,
      appUrl: `http://127.0.0.1:${ports.app}`,
      prometheusUrl: `http://127.0.0.1:${ports.prometheus}`,
      alpn,
      spki,
      runDir,
      files,
      turnPort: ports.turn,
    };
    const stateFile = path.join(runDir, 'state.json');
    await writeFile(stateFile, JSON.stringify(state, null, 2));
    process.env.COMPOSE_TEST_STATE = stateFile;
    log(`stack healthy behind ${baseUrl} (${alpn}) after ${Math.round((Date.now() - started) / 1000)} s`);
    return teardown;
  } catch (error) {
    await teardown();
    throw error;
  }
}

/** NODE_EXTRA_CA_CERTS is read at start, so this process checks HTTPS in a child that has it. */
async function waitForHttpsIn(baseUrl: string, rootFile: string): Promise<void> {
  const script = `(${waitForHttps.toString()})(${JSON.stringify(baseUrl)}).catch((e) => { console.error(e.message); process.exit(1); })`;
  await run(process.execPath, ['-e', script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: rootFile } });
}
