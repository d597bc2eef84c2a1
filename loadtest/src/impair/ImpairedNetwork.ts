/**
 * One impaired participant's network: a namespace of its own joined to the host by a veth pair
 * on a free /30 of 10.240.0.0/16, in which its Chromium runs (launchWrapper()). Inside, whatever
 * goes to 127.0.0.0/8 is sent to the host's veth address, where the host hands TCP to its own
 * loopback (the local app on http://127.0.0.1:PORT) and UDP to the relay (UdpRelay, in a process
 * of its own: RelayProcess), which sends it to the host's loopback (the media server and coturn
 * announce 127.0.0.1) or to a remote address. TCP to other addresses is forwarded and
 * masqueraded by the host.
 *
 * Loss is iptables' `statistic` match in the namespace, on UDP only, each direction: that is the
 * media and ICE traffic whose loss the participant hears. TCP (the page, the API, the signalling
 * socket) is left whole: a lost TCP segment is retransmitted, so loss there only slows page loads
 * and joins, which would blur what the test measures (audio under loss) with the app's timeouts.
 * The kernel has no netem, so delay, jitter and rate come from the relay: the delay and jitter on
 * the way to the participant (so its own inbound jitter, concealment and round-trip time show
 * them, and the round trip grows by the asked delay, as with netem on one side of a link), the
 * rate both ways.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { CHROMIUM_PATH } from '@voice/browser-bots';
import type { ImpairSpec } from '../results/types.ts';
import { enableForwarding, restoreForwarding } from './forwarding.ts';
import { type NetworkNames, networkNames } from './names.ts';
import { RelayProcess } from './RelayProcess.ts';
import { requireRoot, run, runIn } from './system.ts';
import { tearDown, tearDownSync } from './teardown.ts';

/** The namespace's mangle chains that drop and count: UDP leaving it and UDP arriving in it. */
const UP_CHAIN = 'vlt-up';
const DOWN_CHAIN = 'vlt-down';
const SUBNET_ATTEMPTS = 20;

export interface DirectionFigures {
  /** Datagrams offered to this direction (before any loss). */
  offered: number;
  /** Lost to the loss rule and to the rate's full queue. */
  lost: number;
}

export interface MeasuredImpairment {
  /** Lost / offered over both directions, percent; null before any datagram. */
  lossPct: number | null;
  /** Mean time the relay held a datagram on its way to the participant, ms. */
  delayMs: number | null;
  upstream: DirectionFigures;
  downstream: DirectionFigures;
}

export interface ImpairedNetworkOptions {
  /**
   * The deployment is not on this machine's loopback: its TCP is forwarded and masqueraded by the
   * host, which needs the host's IPv4 forwarding on (see forwarding.ts).
   */
  remote?: boolean;
}

/** The open networks, for the exit hook. */
const open = new Set<ImpairedNetwork>();

export class ImpairedNetwork {
  #closing: Promise<void> | null = null;

  private constructor(
    readonly names: NetworkNames,
    readonly spec: ImpairSpec,
    /** The host's and the namespace's addresses on the veth. */
    readonly hostAddress: string,
    readonly insideAddress: string,
    private readonly relay: RelayProcess,
    readonly remote: boolean,
  ) {}

  get namespace(): string {
    return this.names.namespace;
  }

  /** Sets up participant `index`'s network; needs root. */
  static async create(
    spec: ImpairSpec,
    index: number,
    { remote = false }: ImpairedNetworkOptions = {},
  ): Promise<ImpairedNetwork> {
    requireRoot();
    installExitHook();
    if (remote) enableForwarding();
    const names = networkNames(process.pid, index);
    await tearDown(names);
    let lastError: unknown;
    for (let attempt = 0; attempt < SUBNET_ATTEMPTS; attempt++) {
      const [hostAddress, insideAddress] = await freeSubnet();
      let relay: RelayProcess | undefined;
      try {
        await createLink(names, hostAddress, insideAddress);
        await configureNamespace(names, spec, hostAddress, insideAddress);
        relay = await RelayProcess.start(hostAddress, spec);
        await configureHost(names, hostAddress, insideAddress, relay);
        const network = new ImpairedNetwork(names, spec, hostAddress, insideAddress, relay, remote);
        open.add(network);
        return network;
      } catch (error) {
        lastError = error;
        await relay?.stop();
        await tearDown(names);
        // Another process took the same /30 between our look and our claim: try another.
        if (!/File exists|already assigned/i.test(String((error as Error).message))) break;
      }
    }
    throw new Error(
      `could not set up the impaired network ${names.namespace}: ${(lastError as Error).message}`,
    );
  }

  /**
   * An executable that runs Chromium inside the namespace with the arguments it is given, for
   * Playwright's `executablePath` (its pipe transport, file descriptors 3 and 4, passes through
   * `ip netns exec`, which execs the browser in place).
   */
  launchWrapper(browserPath: string = CHROMIUM_PATH): string {
    const script = `#!/bin/sh\nexec ip netns exec '${this.namespace}' '${browserPath}' "$@"\n`;
    writeFileSync(this.names.wrapperScript, script);
    chmodSync(this.names.wrapperScript, 0o755);
    return this.names.wrapperScript;
  }

  /** What the namespace's loss rules and the relay saw so far. */
  async measured(): Promise<MeasuredImpairment> {
    const up = await chainCounters(this.namespace, UP_CHAIN);
    const down = await chainCounters(this.namespace, DOWN_CHAIN);
    const relay = await this.relay.stats();
    const upstream = { offered: up.dropped + up.passed, lost: up.dropped + relay.upstream.dropped };
    const downstream = {
      offered: relay.downstream.passed + relay.downstream.dropped,
      lost: relay.downstream.dropped + down.dropped,
    };
    const offered = upstream.offered + downstream.offered;
    return {
      lossPct: offered ? (100 * (upstream.lost + downstream.lost)) / offered : null,
      delayMs: relay.downstream.meanHeldMs,
      upstream,
      downstream,
    };
  }

  /** Removes the namespace, the veth, the host's rules, the relay and the wrapper. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      open.delete(this);
      await this.relay.stop();
      await tearDown(this.names);
      this.#restoreForwarding();
    })();
    return this.#closing;
  }

  /** The exit hook's version of close(): nothing asynchronous runs once the process exits. */
  closeSync(): void {
    open.delete(this);
    this.relay.kill();
    tearDownSync(this.names);
    this.#restoreForwarding();
  }

  #restoreForwarding(): void {
    if (this.remote && ![...open].some((network) => network.remote)) restoreForwarding();
  }
}

/** Closes every impaired network of this process (for a CLI's own SIGINT handler). */
export async function closeAllImpairedNetworks(): Promise<void> {
  await Promise.all([...open].map((network) => network.close()));
}

let exitHookInstalled = false;

/**
 * Leaves nothing behind when the process ends: at exit, and on SIGINT/SIGTERM when nobody else
 * handles them (a CLI with its own handler calls closeAllImpairedNetworks() itself).
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const network of [...open]) network.closeSync();
  });
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.on(signal, () => {
      for (const network of [...open]) network.closeSync();
      if (process.listenerCount(signal) === 1) process.exit(code);
    });
  }
}

/** A /30 of 10.240.0.0/16 that no address of the host's falls in: [host address, namespace address]. */
async function freeSubnet(): Promise<[string, string]> {
  const used = new Set<string>();
  for (const match of (await run('ip', ['-4', '-o', 'addr', 'show'])).matchAll(
    /inet 10\.240\.(\d+)\.(\d+)/g,
  )) {
    used.add(`${match[1]}.${Math.floor(Number(match[2]) / 4)}`);
  }
  for (;;) {
    const third = Math.floor(Math.random() * 256);
    const block = Math.floor(Math.random() * 64);
    if (used.has(`${third}.${block}`)) continue;
    return [`10.240.${third}.${block * 4 + 1}`, `10.240.${third}.${block * 4 + 2}`];
  }
}

async function createLink(names: NetworkNames, hostAddress: string, insideAddress: string): Promise<void> {
  const { namespace, hostInterface, insideInterface } = names;
  const ns = ['-n', namespace];
  for (const args of [
    ['netns', 'add', namespace],
    ['link', 'add', hostInterface, 'type', 'veth', 'peer', 'name', insideInterface, 'netns', namespace],
    ['addr', 'add', `${hostAddress}/30`, 'dev', hostInterface],
    ['link', 'set', hostInterface, 'up'],
    [...ns, 'link', 'set', 'lo', 'up'],
    [...ns, 'addr', 'add', `${insideAddress}/30`, 'dev', insideInterface],
    [...ns, 'link', 'set', insideInterface, 'up'],
    [...ns, 'route', 'add', 'default', 'via', hostAddress],
  ]) {
    await run('ip', args);
  }
}

async function configureNamespace(
  names: NetworkNames,
  spec: ImpairSpec,
  hostAddress: string,
  insideAddress: string,
): Promise<void> {
  const { namespace, insideInterface } = names;
  // Packets to 127.0.0.0/8 may leave by the veth (after the DNAT below), with their loopback
  // source rewritten to the namespace's address.
  await runIn(namespace, 'sysctl', ['-qw', `net.ipv4.conf.${insideInterface}.route_localnet=1`]);
  const iptables = (args: string[]) => runIn(namespace, 'iptables', args);
  await iptables([
    '-t',
    'nat',
    '-A',
    'OUTPUT',
    '-d',
    '127.0.0.0/8',
    '-j',
    'DNAT',
    '--to-destination',
    hostAddress,
  ]);
  await iptables([
    '-t',
    'nat',
    '-A',
    'POSTROUTING',
    '-o',
    insideInterface,
    '-s',
    '127.0.0.0/8',
    '-j',
    'SNAT',
    '--to-source',
    insideAddress,
  ]);
  // POSTROUTING and PREROUTING: the hooks where the interface is the one the packet really uses
  // (in OUTPUT it is still the loopback the packet was first routed to, before the DNAT).
  const probability = Math.min(1, Math.max(0, (spec.lossPct ?? 0) / 100)).toFixed(6);
  for (const [chain, hook, direction] of [
    [UP_CHAIN, 'POSTROUTING', '-o'],
    [DOWN_CHAIN, 'PREROUTING', '-i'],
  ] as const) {
    await iptables(['-t', 'mangle', '-N', chain]);
    if (spec.lossPct) {
      await iptables([
        '-t',
        'mangle',
        '-A',
        chain,
        '-m',
        'statistic',
        '--mode',
        'random',
        '--probability',
        probability,
        '-j',
        'DROP',
      ]);
    }
    // Counts what passed (the drop rule counts what did not).
    await iptables(['-t', 'mangle', '-A', chain, '-j', 'RETURN']);
    await iptables(['-t', 'mangle', '-A', hook, direction, insideInterface, '-p', 'udp', '-j', chain]);
  }
}

async function configureHost(
  names: NetworkNames,
  hostAddress: string,
  insideAddress: string,
  relay: RelayProcess,
): Promise<void> {
  const { hostInterface, namespace } = names;
  const tag = ['-m', 'comment', '--comment', namespace];
  // TCP the namespace sends to the host's veth address may go on to the host's loopback.
  await run('sysctl', ['-qw', `net.ipv4.conf.${hostInterface}.route_localnet=1`]);
  // The namespace's TCP to a remote deployment enters here to be forwarded (forwarding.ts).
  await run('sysctl', ['-qw', `net.ipv4.conf.${hostInterface}.forwarding=1`]);
  for (const rule of [
    [
      'PREROUTING',
      '-i',
      hostInterface,
      '-p',
      'udp',
      '-j',
      'REDIRECT',
      '--to-ports',
      `${relay.firstPort}-${relay.lastPort}`,
    ],
    [
      'PREROUTING',
      '-i',
      hostInterface,
      '-p',
      'tcp',
      '-d',
      hostAddress,
      '-j',
      'DNAT',
      '--to-destination',
      '127.0.0.1',
    ],
    ['POSTROUTING', '-s', `${insideAddress}/32`, '!', '-o', hostInterface, '-j', 'MASQUERADE'],
  ]) {
    await run('iptables', ['-t', 'nat', '-A', ...rule, ...tag]);
  }
}

/** Datagrams a loss chain dropped and let through, from its rules' counters. */
async function chainCounters(namespace: string, chain: string): Promise<{ dropped: number; passed: number }> {
  const listing = await runIn(namespace, 'iptables', ['-t', 'mangle', '-L', chain, '-n', '-v', '-x']);
  let dropped = 0;
  let passed = 0;
  for (const line of listing.split('\n')) {
    const [packets, , target] = line.trim().split(/\s+/);
    if (!packets || !/^\d+$/.test(packets)) continue;
    if (target === 'DROP') dropped += Number(packets);
    if (target === 'RETURN') passed += Number(packets);
  }
  return { dropped, passed };
}
