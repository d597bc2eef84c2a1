/**
 * The userspace stage between one impaired namespace and the rest of the world, for UDP (media,
 * STUN, TURN). The host's iptables redirects every datagram the namespace sends to one of the
 * relay's front ports; the relay finds where it was going (connection tracking), sends it on from
 * a socket of the flow's own (5-tuple → upstream socket) and sends the replies back through the
 * same front port, so the kernel rewrites their source to the address the namespace wrote to.
 * Each direction goes through a DelayLine: upstream (namespace → world) for the rate, downstream
 * (world → namespace) for the rate and the delay ± jitter. Loss is not made here but by iptables
 * in the namespace, which counts it.
 */
import dgram from 'node:dgram';
import type { ImpairSpec } from '../results/types.ts';
import { type Endpoint, originalDestination } from './conntrack.ts';
import { DelayLine, type DelayLineStats } from './DelayLine.ts';

/**
 * Front ports per relay. A namespace socket that writes to several destinations (a media
 * server and a TURN server) needs one front port per destination: the kernel's NAT keeps reply
 * tuples unique by picking another port of the redirect's range.
 */
export const FRONT_PORTS = 16;
/** A flow unused this long is forgotten and its upstream socket closed. */
const FLOW_IDLE_MS = 60_000;
const SWEEP_EVERY_MS = 10_000;
/** Where the front port range may start (below Linux's ephemeral range, above common services). */
const PORT_BASE_MIN = 20_000;
const PORT_BASE_MAX = 30_000;

interface Flow {
  upstream: dgram.Socket;
  lastUsed: number;
}

export interface RelayStats {
  upstream: DelayLineStats;
  downstream: DelayLineStats;
  flows: number;
}

export class UdpRelay {
  readonly #flows = new Map<string, Flow>();
  /** Flows whose destination is being looked up: their datagrams wait here. */
  readonly #pending = new Map<string, Buffer[]>();
  readonly #upstream: DelayLine;
  readonly #downstream: DelayLine;
  readonly #sweeper: NodeJS.Timeout;
  #closed = false;

  private constructor(
    private readonly fronts: dgram.Socket[],
    /** The host's address on the namespace's veth: the relay listens there. */
    readonly address: string,
    /** The first front port; the range is firstPort … firstPort + FRONT_PORTS − 1. */
    readonly firstPort: number,
    spec: ImpairSpec,
  ) {
    this.#upstream = new DelayLine({ rateKbit: spec.rateKbit });
    this.#downstream = new DelayLine(spec);
    fronts.forEach((front, index) => {
      front.on('message', (data, from) => this.#fromNamespace(index, data, from));
      // A send error (an ICMP unreachable reported late) must not end the load test.
      front.on('error', () => {});
    });
    this.#sweeper = setInterval(() => this.#forgetIdleFlows(), SWEEP_EVERY_MS);
    this.#sweeper.unref();
  }

  /** Binds FRONT_PORTS consecutive ports on `address`, trying other ranges while one is taken. */
  static async start(address: string, spec: ImpairSpec): Promise<UdpRelay> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const base = PORT_BASE_MIN + Math.floor(Math.random() * (PORT_BASE_MAX - PORT_BASE_MIN));
      const fronts: dgram.Socket[] = [];
      try {
        for (let i = 0; i < FRONT_PORTS; i++) fronts.push(await bind(address, base + i));
        return new UdpRelay(fronts, address, base, spec);
      } catch {
        for (const front of fronts) front.close();
      }
    }
    throw new Error(`the UDP relay found no ${FRONT_PORTS} free consecutive ports on ${address}`);
  }

  get lastPort(): number {
    return this.firstPort + FRONT_PORTS - 1;
  }

  stats(): RelayStats {
    return {
      upstream: this.#upstream.stats(),
      downstream: this.#downstream.stats(),
      flows: this.#flows.size,
    };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#upstream.close();
    this.#downstream.close();
    for (const flow of this.#flows.values()) flow.upstream.close();
    this.#flows.clear();
    for (const front of this.fronts) front.close();
  }

  #fromNamespace(frontIndex: number, data: Buffer, from: dgram.RemoteInfo): void {
    const key = `${frontIndex}/${from.address}:${from.port}`;
    const flow = this.#flows.get(key);
    if (flow) {
      flow.lastUsed = Date.now();
      this.#upstream.push(data.length, () => sendQuietly(flow.upstream, data));
      return;
    }
    const waiting = this.#pending.get(key);
    if (waiting) {
      waiting.push(data);
      return;
    }
    this.#pending.set(key, [data]);
    void this.#openFlow(key, frontIndex, { address: from.address, port: from.port });
  }

  async #openFlow(key: string, frontIndex: number, sender: Endpoint): Promise<void> {
    const front = this.fronts[frontIndex] as dgram.Socket;
    try {
      const destination = await originalDestination(sender, {
        address: this.address,
        port: this.firstPort + frontIndex,
      });
      if (!destination || this.#closed) throw new Error('no conntrack entry');
      // The namespace reaches the host's loopback through the host's veth address.
      const loopback = destination.address === this.address;
      const target = loopback ? '127.0.0.1' : destination.address;
      const upstream = dgram.createSocket('udp4');
      upstream.on('error', () => {});
      await new Promise<void>((resolve, reject) => {
        upstream.once('error', reject);
        upstream.bind(0, loopback ? '127.0.0.1' : undefined, () => {
          upstream.connect(destination.port, target, () => {
            upstream.off('error', reject);
            resolve();
          });
        });
      });
      upstream.on('message', (reply) => {
        const flow = this.#flows.get(key);
        if (flow) flow.lastUsed = Date.now();
        this.#downstream.push(reply.length, () => sendQuietly(front, reply, sender));
      });
      const flow: Flow = { upstream, lastUsed: Date.now() };
      this.#flows.set(key, flow);
      for (const data of this.#pending.get(key) ?? []) {
        this.#upstream.push(data.length, () => sendQuietly(upstream, data));
      }
    } catch {
      // Without a destination the datagrams are lost, as on a broken path; the next one retries.
    } finally {
      this.#pending.delete(key);
    }
  }

  #forgetIdleFlows(): void {
    const now = Date.now();
    for (const [key, flow] of this.#flows) {
      if (now - flow.lastUsed > FLOW_IDLE_MS) {
        flow.upstream.close();
        this.#flows.delete(key);
      }
    }
  }
}

function bind(address: string, port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    socket.once('error', reject);
    socket.bind(port, address, () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

/** Sends unless the socket was closed meanwhile (a flow forgotten while its datagrams waited). */
function sendQuietly(socket: dgram.Socket, data: Buffer, to?: Endpoint): void {
  try {
    if (to) socket.send(data, to.port, to.address);
    else socket.send(data);
  } catch {
    // Closed: the datagram is lost, as it would be on a link that went down.
  }
}
