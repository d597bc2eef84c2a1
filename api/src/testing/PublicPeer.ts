/**
 * A peer on "the internet" that never leaves this machine: a network namespace of its own, joined
 * to the host by a veth pair, holding made-up public addresses (11.22.33.N/32 and
 * 2a00:1122:3344::N/128) with a UDP echo on each. The host reaches them through host routes on
 * its end of the veth, which holds benchmarking addresses (198.18.A.B/32, 2001:2:0:X::1/128,
 * RFC 2544 and 5180) for a relay to send from. start() checks with `ip route get` that the
 * addresses route into the namespace before anything is sent, so no packet to them can take the
 * default route off the machine. Needs root and iproute2: this fails, with the reason, rather
 * than skipping. close() ends the echo (by its pid) and removes the namespace and the veth.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** Our namespaces are named `voice-peer-<pid of the test process>-<random>`. */
const NAME_PREFIX = 'voice-peer-';
/** The echo's port, the same on both addresses: the namespace is ours, so any port is free. */
const ECHO_PORT = 3480;
const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5000;

/** Answers every datagram with the same bytes, on both addresses; says "ready" once bound. */
const ECHO_SCRIPT = `
const dgram = require('node:dgram');
const [ipv4, ipv6, port] = process.argv.slice(1);
let bound = 0;
for (const [type, address] of [['udp4', ipv4], ['udp6', ipv6]]) {
  const socket = dgram.createSocket(type);
  socket.on('message', (data, from) => socket.send(data, from.port, from.address));
  socket.bind(Number(port), address, () => { if (++bound === 2) console.log('ready'); });
}
`;

export class PublicPeer {
  #echo: ChildProcess;
  #closed = false;

  private constructor(
    echo: ChildProcess,
    /** The network namespace's name. */
    readonly namespace: string,
    /** The host's end of the veth pair. */
    readonly hostInterface: string,
    /** The peer's public-looking IPv4 address (11.22.33.N). */
    readonly ipv4: string,
    /** The peer's public-looking IPv6 address (2a00:1122:3344::N). */
    readonly ipv6: string,
    /** The host's addresses on the veth: a relay bound to them reaches the peer. */
    readonly hostIpv4: string,
    readonly hostIpv6: string,
  ) {
    this.#echo = echo;
  }

  /** The UDP echo's port on both addresses. */
  get port(): number {
    return ECHO_PORT;
  }

  static async start(): Promise<PublicPeer> {
    if (process.getuid?.() !== 0) {
      throw new Error('PublicPeer needs root (a network namespace and a veth pair); CI runs as root');
    }
    await run('ip', ['-V']).catch((error: Error) => {
      throw new Error(`PublicPeer needs iproute2's \`ip\`: ${error.message}`);
    });
    await removeAbandoned();
    let lastError: unknown;
    // Another run may hold the same random addresses; a clash shows as "File exists".
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = randomBytes(3).toString('hex');
      const namespace = `${NAME_PREFIX}${process.pid}-${id}`;
      const host = `vp${id}h`;
      const inside = `vp${id}n`;
      const n = randomInt(1, 255);
      const ipv4 = `11.22.33.${n}`;
      const ipv6 = `2a00:1122:3344::${n.toString(16)}`;
      const hostIpv4 = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
      const hostIpv6 = `2001:2:0:${randomInt(1, 0xffff).toString(16)}::1`;
      try {
        await setUp({ namespace, host, inside, ipv4, ipv6, hostIpv4, hostIpv6 });
        const echo = spawn(
          'ip',
          ['netns', 'exec', namespace, process.execPath, '-e', ECHO_SCRIPT, ipv4, ipv6, String(ECHO_PORT)],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        const peer = new PublicPeer(echo, namespace, host, ipv4, ipv6, hostIpv4, hostIpv6);
        try {
          await waitForReady(echo);
        } catch (error) {
          await peer.close();
          throw error;
        }
        return peer;
      } catch (error) {
        lastError = error;
        await tearDown(namespace, host);
        if (!String((error as Error).message).includes('File exists')) break;
      }
    }
    throw new Error(`PublicPeer could not set up its namespace: ${(lastError as Error).message}`);
  }

  /** Ends the echo and removes the namespace, the veth pair and its routes. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const echo = this.#echo;
    if (echo.exitCode === null && echo.signalCode === null) {
      const exited = new Promise<void>((resolve) => echo.once('exit', () => resolve()));
      echo.kill('SIGTERM');
      const timer = setTimeout(() => echo.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    await tearDown(this.namespace, this.hostInterface);
  }
}

interface Layout {
  namespace: string;
  host: string;
  inside: string;
  ipv4: string;
  ipv6: string;
  hostIpv4: string;
  hostIpv6: string;
}

async function setUp(layout: Layout): Promise<void> {
  const { namespace, host, inside, ipv4, ipv6, hostIpv4, hostIpv6 } = layout;
  const ns = ['-n', namespace];
  for (const args of [
    ['netns', 'add', namespace],
    ['link', 'add', host, 'type', 'veth', 'peer', 'name', inside, 'netns', namespace],
    // No duplicate address detection: the addresses are usable at once, and they are ours.
    ['addr', 'add', `${hostIpv4}/32`, 'dev', host],
    ['addr', 'add', `${hostIpv6}/128`, 'dev', host, 'nodad'],
    ['link', 'set', host, 'up'],
    [...ns, 'link', 'set', 'lo', 'up'],
    [...ns, 'addr', 'add', `${ipv4}/32`, 'dev', inside],
    [...ns, 'addr', 'add', `${ipv6}/128`, 'dev', inside, 'nodad'],
    [...ns, 'link', 'set', inside, 'up'],
    // Each side reaches the other's addresses on the veth, and nothing else.
    [...ns, 'route', 'add', `${hostIpv4}/32`, 'dev', inside],
    [...ns, '-6', 'route', 'add', `${hostIpv6}/128`, 'dev', inside],
    ['route', 'add', `${ipv4}/32`, 'dev', host, 'src', hostIpv4],
    ['-6', 'route', 'add', `${ipv6}/128`, 'dev', host, 'src', hostIpv6],
  ]) {
    await run('ip', args).catch((error: { stderr?: string; message: string }) => {
      throw new Error(`ip ${args.join(' ')}: ${error.stderr?.trim() || error.message}`);
    });
  }
  // The guarantee that nothing sent to the peer's addresses leaves this machine.
  for (const address of [ipv4, ipv6]) {
    const { stdout } = await run('ip', ['-j', 'route', 'get', address]);
    const [route] = JSON.parse(stdout) as { dev?: string; gateway?: string }[];
    if (route?.dev !== host || route.gateway) {
      throw new Error(`${address} routes via ${stdout.trim()}, not into the namespace through ${host}`);
    }
  }
}

/** Removes the namespace (which takes the veth pair and the host routes with it), quietly. */
async function tearDown(namespace: string, host: string): Promise<void> {
  // A process left in the namespace would keep it, and the veth, alive: only our echo runs there.
  const { stdout } = await run('ip', ['netns', 'pids', namespace]).catch(() => ({ stdout: '' }));
  for (const pid of stdout.split('\n').filter(Boolean)) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await run('ip', ['netns', 'del', namespace]).catch(() => {});
  await run('ip', ['link', 'del', host]).catch(() => {});
}

/** Namespaces of ours whose test process died before its close() ran. */
async function removeAbandoned(): Promise<void> {
  const { stdout } = await run('ip', ['netns', 'list']).catch(() => ({ stdout: '' }));
  for (const line of stdout.split('\n')) {
    const match = new RegExp(`^(${NAME_PREFIX}(\\d+)-([0-9a-f]{6}))\\b`).exec(line);
    if (!match || existsSync(`/proc/${match[2]}`)) continue;
    await tearDown(match[1] as string, `vp${match[3]}h`);
  }
}

function waitForReady(echo: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`the echo did not start within ${READY_TIMEOUT_MS} ms: ${output}`)),
      READY_TIMEOUT_MS,
    );
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    echo.stdout?.on('data', collect);
    echo.stderr?.on('data', collect);
    echo.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the echo exited with ${code}: ${output}`));
    });
  });
}
