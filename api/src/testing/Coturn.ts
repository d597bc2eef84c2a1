/**
 * A real coturn (Debian's `turnserver`) on loopback for tests, started the way production
 * starts it: coturn/entrypoint.sh on coturn/turnserver.conf as shipped, plus only what a test
 * must change (loopback addresses, free ports, its own pid file and database), with the secret
 * and realm passed in the environment. Stopped by its pid. With `container`, the same runs in a
 * Docker image on the host's network, as docker-compose.yml runs it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Address, TurnClient } from './TurnClient.ts';

const COTURN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../coturn');
const TURNSERVER = '/usr/bin/turnserver';
// Relay ports above Linux's ephemeral range (32768-60999), so they rarely meet a port in use.
const RELAY_PORTS_FROM = 61000;
const RELAY_PORTS_TO = 65000;
const RELAY_PORTS = 50;
const START_TIMEOUT_MS = 10_000;
/** A container also has to be created and started. */
const CONTAINER_START_TIMEOUT_MS = 60_000;
/** Where docker-compose.yml mounts the shipped files in the coturn container. */
const CONTAINER_CONFIG = '/etc/coturn/turnserver.conf';
const CONTAINER_ENTRYPOINT = '/etc/coturn/voice-entrypoint.sh';
const STOP_TIMEOUT_MS = 5000;

export interface CoturnOptions {
  /** coturn's static-auth-secret: the API's TURN_SECRET. */
  secret: string;
  /** Default `voice.test`. */
  realm?: string;
  /**
   * Lets the relay reach 127.0.0.1 and ::1 (`allow-loopback-peers` and both as allowed peers),
   * so two loopback clients or browsers can relay to each other. Tests only: production
   * denies loopback.
   */
  loopbackPeers?: boolean;
  /** The config to start from; default coturn/turnserver.conf as shipped. */
  baseConfig?: string;
  /** More config lines, after the shipped config and the test's own. */
  extraConfig?: string[];
  /** More environment for coturn/entrypoint.sh (e.g. TURN_ALLOWED_PEER_IPS). */
  env?: Record<string, string>;
  /**
   * The addresses relays are opened on (`relay-ip`); default 127.0.0.1 and ::1. A relay that
   * must reach a peer beyond loopback needs an address on a real interface (PublicPeer's).
   */
  relayIps?: string[];
  /** Runs coturn in this Docker image (host network, its own turnserver) instead of the host's. */
  container?: { image: string; docker: string };
}

export class Coturn {
  #child: ChildProcess;
  #dir: string;
  #output: string[];
  #stop: () => void;
  #stopped = false;

  private constructor(
    child: ChildProcess,
    dir: string,
    output: string[],
    stop: () => void,
    /** The TURN/STUN port on 127.0.0.1 and ::1 (UDP and TCP). */
    readonly port: number,
    readonly realm: string,
  ) {
    this.#child = child;
    this.#dir = dir;
    this.#output = output;
    this.#stop = stop;
  }

  static async start(options: CoturnOptions): Promise<Coturn> {
    if (!options.container && !existsSync(TURNSERVER)) {
      throw new Error(`${TURNSERVER} is missing: install Debian's coturn (apt-get install -y coturn)`);
    }
    const realm = options.realm ?? 'voice.test';
    const port = await freePort();
    const relayFrom =
      RELAY_PORTS_FROM +
      RELAY_PORTS * Math.floor((Math.random() * (RELAY_PORTS_TO - RELAY_PORTS_FROM)) / RELAY_PORTS);
    const dir = mkdtempSync(path.join(tmpdir(), 'voice-coturn-'));
    const template = path.join(dir, 'template.conf');
    // In a container, its own /tmp (writable by the unprivileged user the image runs as).
    const files = options.container ? '/tmp' : dir;
    writeFileSync(
      template,
      [
        readFileSync(options.baseConfig ?? path.join(COTURN_DIR, 'turnserver.conf'), 'utf8'),
        '# Added by the test: loopback only, free ports, its own files.',
        'listening-ip=127.0.0.1',
        'listening-ip=::1',
        ...(options.relayIps ?? ['127.0.0.1', '::1']).map((ip) => `relay-ip=${ip}`),
        `listening-port=${port}`,
        `min-port=${relayFrom}`,
        `max-port=${relayFrom + RELAY_PORTS - 1}`,
        `pidfile=${path.join(files, 'turnserver.pid')}`,
        `userdb=${path.join(files, 'turndb')}`,
        ...(options.loopbackPeers
          ? ['allow-loopback-peers', 'allowed-peer-ip=127.0.0.1', 'allowed-peer-ip=::1']
          : []),
        ...(options.extraConfig ?? []),
        '',
      ].join('\n'),
    );
    const entrypointEnv = { TURN_SECRET: options.secret, TURN_REALM: realm, ...options.env };
    let child: ChildProcess;
    let stop: () => void;
    if (options.container) {
      const { image, docker } = options.container;
      const name = `voice-coturn-test-${process.pid}-${port}`;
      child = spawn(
        docker,
        [
          'run',
          '--rm',
          '--name',
          name,
          '--network',
          'host',
          // Values from this process's environment below, so the secret is not on a command line.
          ...Object.keys(entrypointEnv).flatMap((key) => ['--env', key]),
          '--volume',
          `${template}:${CONTAINER_CONFIG}:ro`,
          '--volume',
          `${path.join(COTURN_DIR, 'entrypoint.sh')}:${CONTAINER_ENTRYPOINT}:ro`,
          '--entrypoint',
          '/bin/sh',
          image,
          CONTAINER_ENTRYPOINT,
        ],
        { env: { PATH: process.env.PATH, ...entrypointEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      // The client's exit does not end the container: remove it by its name.
      stop = () => {
        spawn(docker, ['rm', '--force', name], { stdio: 'ignore' });
      };
    } else {
      child = spawn('sh', [path.join(COTURN_DIR, 'entrypoint.sh')], {
        env: {
          PATH: process.env.PATH,
          // The entrypoint's private copy of the config (with the secret) goes here, removed on stop.
          TMPDIR: dir,
          TURN_CONFIG_TEMPLATE: template,
          ...entrypointEnv,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      stop = () => child.kill('SIGTERM');
    }
    const output: string[] = [];
    const keep = (chunk: Buffer) => {
      output.push(chunk.toString('utf8'));
      if (output.length > 500) output.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const coturn = new Coturn(child, dir, output, stop, port, realm);
    try {
      await coturn.#waitUntilReady(options.container ? CONTAINER_START_TIMEOUT_MS : START_TIMEOUT_MS);
    } catch (error) {
      await coturn.stop();
      throw new Error(`coturn did not start: ${(error as Error).message}\n${output.join('').slice(-4000)}`);
    }
    return coturn;
  }

  /**
   * The process id (the entrypoint execs turnserver, so it keeps the shell's pid); in a
   * container, the Docker client's.
   */
  get pid(): number {
    return this.#child.pid as number;
  }

  /** The server's UDP address on 127.0.0.1 (or ::1). */
  address(family: 'ipv4' | 'ipv6' = 'ipv4'): Address {
    return { address: family === 'ipv6' ? '::1' : '127.0.0.1', port: this.port };
  }

  /** A TURN_URLS value for this server. */
  get turnUrls(): string {
    return `turn:127.0.0.1:${this.port}?transport=udp,turn:127.0.0.1:${this.port}?transport=tcp`;
  }

  /** What coturn printed so far (for a failing test's message). */
  get output(): string {
    return this.#output.join('');
  }

  /** Stops coturn (SIGTERM or removing its container, then SIGKILL) and removes its files. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    const child = this.#child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      this.#stop();
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }

  /** Ready once a STUN binding request on UDP is answered. */
  async #waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.#child.exitCode !== null) throw new Error(`exited with ${this.#child.exitCode}`);
      const client = await TurnClient.connect(this.address());
      try {
        await client.binding();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await client.close();
      }
    }
    throw new Error(`no answer on 127.0.0.1:${this.port} within ${timeoutMs} ms`);
  }
}

/** A port free for UDP and TCP on both 127.0.0.1 and ::1 right now. */
async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const probe = createSocket('udp4');
    const port = await new Promise<number>((resolve, reject) => {
      probe.once('error', reject);
      probe.bind(0, '127.0.0.1', () => resolve(probe.address().port));
    });
    probe.close();
    const free = await Promise.all([
      udpFree(port, '127.0.0.1'),
      udpFree(port, '::1'),
      tcpFree(port, '127.0.0.1'),
      tcpFree(port, '::1'),
    ]);
    if (free.every(Boolean)) return port;
  }
  throw new Error('no free port for coturn');
}

function udpFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    socket.once('error', () => resolve(false));
    socket.bind(port, host, () => socket.close(() => resolve(true)));
  });
}

function tcpFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
