/**
 * What the RTP benchmarks (bench:sfu, bench:large-room) share: the media server in this process
 * with ONE mediasoup worker behind its real `/rtc` endpoint, members that join over protoo
 * (TestMember, real room tokens) and send and receive Opus through PlainTransports, the sockets
 * their consumers send to, and the /proc readings the worker is measured with.
 */
import { execFileSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type Bus, MemoryBus } from '@voice/bus';
import {
  type Consumer,
  ForwardAll,
  type Logger,
  loadMediaConfig,
  MediaServer,
  type MediaServerOptions,
  type Room,
} from '@voice/media-server';
import {
  opusPacket,
  opusRtpParameters,
  signRoomToken,
  TEST_MEDIA_SECRET,
  TestMember,
} from '@voice/media-server/testing';
import { MEDIA_SOCKET_PATH } from '@voice/protocol';
import { routeUpgrades } from '@voice/signalling';
import { type BotCertificate, botDtlsParameters, type WebRtcRemote } from './dtls.ts';
import type { EarsReply, EarsRequest, EarsThreadData } from './ears.thread.ts';

/** Opus in 20 ms frames. */
export const PACKET_MS = 20;
/** Any single wait: a step that takes longer has failed. */
export const STEP_TIMEOUT_MS = 10_000;
/** Consumer stats requests in flight at once. */
const STATS_BATCH = 100;

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString());
export const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Nearest-rank percentile of an ascending list. */
export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number);
export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Now in ms since the epoch, to a fraction of a ms: comparable across this process's threads,
 * whose `performance.now()` each count from their own start.
 */
export const clock = () => performance.timeOrigin + performance.now();

/**
 * CPU seconds a process (`pid`, all its threads) or one thread (`/proc/<pid>/task/<tid>`) has
 * used so far, in user space and in the kernel.
 */
export function cpuSeconds(of: number | string): { user: number; system: number } {
  const stat = readFileSync(typeof of === 'number' ? `/proc/${of}/stat` : `${of}/stat`, 'utf8');
  // Fields after the command name, which may hold spaces; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / CLOCK_TICKS, system: Number(fields[12]) / CLOCK_TICKS };
}

export async function until(check: () => boolean, what: string, timeoutMs = STEP_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** RTCP (second byte 192-223, where RTP has marker and payload type) is not audio. */
export const isRtp = (message: Buffer) =>
  message.length >= 12 && ((message[1] ?? 0) < 192 || (message[1] ?? 0) > 223);

/**
 * A loopback UDP socket that is never read: a thread binds it with the smallest receive buffer
 * and then blocks, so the buffer fills at once and the kernel drops every later packet on
 * arrival, with no reader to wake and no ICMP answer to send.
 */
export class Sink {
  static readonly #code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { createSocket } = require('node:dgram');
    const stop = new Int32Array(workerData);
    const socket = createSocket({ type: 'udp4', recvBufferSize: 1 });
    socket.bind(0, '127.0.0.1', () => {
      parentPort.postMessage(socket.address().port);
      while (Atomics.load(stop, 0) === 0) Atomics.wait(stop, 0, 0, 1000);
      socket.close();
      process.exit(0);
    });`;
  readonly #stop = new Int32Array(new SharedArrayBuffer(4));
  readonly #thread = new Worker(Sink.#code, { eval: true, workerData: this.#stop.buffer });
  readonly #port = once(this.#thread, 'message').then(([port]) => port as number);

  /** The socket's port, once bound. */
  port(): Promise<number> {
    return this.#port;
  }

  /**
   * Packets the kernel has dropped at the socket so far (/proc/net/udp): all that arrived but the
   * one or two its buffer held, counted at no cost to the sender.
   */
  async dropped(): Promise<number> {
    return udpDrops([await this.#port]);
  }

  async close(): Promise<void> {
    Atomics.store(this.#stop, 0, 1);
    Atomics.notify(this.#stop, 0);
    await once(this.#thread, 'exit');
  }
}

export async function udpSocket(onMessage: (message: Buffer) => void = () => {}): Promise<Socket> {
  const socket = createSocket('udp4');
  socket.on('message', onMessage);
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return socket;
}

/**
 * One voice of a Pacer: Opus to a producing transport's port at its own level (-dBov, 0 loudest),
 * 50 packets a second while it talks and nothing while silent, as Opus with DTX sends (almost)
 * nothing. Its sequence numbers run on across silences, as a real sender's do.
 */
export class PacedVoice {
  readonly ssrc: number;
  readonly level: number;
  readonly #port: number;
  readonly #socket: Socket;
  /** The pacer's voices that talk now. */
  readonly #talking: Set<PacedVoice>;
  #sequence = 0;
  /** Packets sent since it last started, and when that was (with its phase). */
  #sent = 0;
  #startedAt = 0;

  constructor(socket: Socket, talking: Set<PacedVoice>, port: number, ssrc: number, level: number) {
    this.#socket = socket;
    this.#talking = talking;
    this.#port = port;
    this.ssrc = ssrc;
    this.level = level;
  }

  get talking(): boolean {
    return this.#talking.has(this);
  }

  /** Starts talking with a packet at once; returns when it went (`clock()`), or NaN if it talked already. */
  start(): number {
    if (this.talking) return Number.NaN;
    // A random phase within the frame, so that voices started together do not send together.
    this.#startedAt = performance.now() - Math.random() * PACKET_MS;
    this.#sent = 0;
    this.#talking.add(this);
    const at = clock();
    this.sendDue(performance.now());
    return at;
  }

  stop(): void {
    this.#talking.delete(this);
  }

  /** Sends what is due by `now`: a late timer sends several, so the voice keeps its rate on average. */
  sendDue(now: number): void {
    const due = Math.floor((now - this.#startedAt) / PACKET_MS) + 1;
    for (; this.#sent < due; this.#sent++) {
      this.#sequence += 1;
      this.#socket.send(opusPacket(this.#sequence, this.ssrc, this.level), this.#port, '127.0.0.1');
    }
  }
}

/** Sends every talking voice's Opus packets from one socket, on phases spread over the 20 ms. */
export class Pacer {
  readonly #socket: Socket;
  readonly #talking = new Set<PacedVoice>();
  readonly #timer = setInterval(() => this.#tick(), 5);

  static async create(): Promise<Pacer> {
    return new Pacer(await udpSocket());
  }

  private constructor(socket: Socket) {
    this.#socket = socket;
  }

  /** A voice to a producing transport's `port`, silent until started. */
  voice(port: number, ssrc: number, level = 30): PacedVoice {
    return new PacedVoice(this.#socket, this.#talking, port, ssrc, level);
  }

  close(): void {
    clearInterval(this.#timer);
    this.#talking.clear();
    this.#socket.close();
  }

  #tick(): void {
    const now = performance.now();
    for (const voice of this.#talking) voice.sendDue(now);
  }
}

/** What one Ears socket received since it opened or was last marked. */
export interface Heard {
  port: number;
  /** RTP packets. */
  received: number;
  /** When the first packet of each SSRC arrived (`clock()`). */
  firsts: Map<number, number>;
  /** When the latest packet of each SSRC arrived (`clock()`). */
  lasts: Map<number, number>;
}

/**
 * The sockets the load's consumers send to, on a thread of their own (ears.thread.ts). Counting
 * ears read and time every RTP packet there: at a hundred thousand packets a second, reading them
 * on the main thread would starve the mediasoup channel, the members' protoo and the pacer, which
 * all live there. A sink's ears only connect their transports and are then sealed: nothing reads
 * them, and the kernel drops what arrives (`udpDrops`). With a `certificate`, an ear connects
 * as a browser's receiving transport (ICE and DTLS, so that the worker encrypts with SRTP).
 */
export class Ears {
  readonly #stop = new Int32Array(new SharedArrayBuffer(4));
  readonly #thread: Worker;
  readonly #pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  #nextId = 0;

  constructor({
    counting = true,
    certificate = null,
  }: { counting?: boolean; certificate?: BotCertificate | null } = {}) {
    const file = fileURLToPath(new URL('./ears.thread.ts', import.meta.url));
    const data: EarsThreadData = { counting, certificate, stop: this.#stop.buffer as SharedArrayBuffer };
    // tsx's loader does not follow into worker threads: the thread registers it for itself.
    this.#thread = new Worker(`require('tsx/cjs/api').require(${JSON.stringify(file)}, __filename);`, {
      eval: true,
      workerData: data,
    });
    this.#thread.on('message', ({ id, value, error }: EarsReply) => {
      const waiter = this.#pending.get(id);
      this.#pending.delete(id);
      if (error === undefined) waiter?.resolve(value);
      else waiter?.reject(new Error(error));
    });
    this.#thread.on('error', (error) => {
      for (const waiter of this.#pending.values()) waiter.reject(error);
      this.#pending.clear();
    });
  }

  /** A new socket's port. */
  open(): Promise<number> {
    return this.#ask({ op: 'open' });
  }

  /**
   * Connects socket `port` to a WebRtcTransport (ICE, DTLS as client); resolves with the SRTP
   * profile agreed (its IANA number: 8 is AEAD_AES_256_GCM).
   */
  secure(port: number, remote: WebRtcRemote): Promise<number> {
    return this.#ask({ op: 'secure', port, remote });
  }

  /** RTP packets received so far by every socket. */
  received(): Promise<number> {
    return this.#ask({ op: 'count' });
  }

  /** What each socket received since it opened or the last mark(). */
  heard(): Promise<Heard[]> {
    return this.#ask({ op: 'heard' });
  }

  /** Starts every socket's count and first arrivals afresh. */
  async mark(): Promise<void> {
    await this.#ask({ op: 'mark' });
  }

  /** The reading thread's /proc/<pid>/task/<tid>, for its CPU time. */
  thread(): Promise<string> {
    return this.#ask({ op: 'thread' });
  }

  /**
   * Stops reading for good (its transports all connected by now): the thread blocks until
   * close(). Resolves with the sockets' ports.
   */
  seal(): Promise<number[]> {
    return this.#ask({ op: 'seal' });
  }

  async close(): Promise<void> {
    const exited = once(this.#thread, 'exit');
    Atomics.store(this.#stop, 0, 1);
    Atomics.notify(this.#stop, 0);
    this.#thread.postMessage({ id: -1, op: 'close' } satisfies EarsRequest);
    await exited;
  }

  #ask<T>(
    request: EarsRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never,
  ): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#thread.postMessage({ ...request, id } as EarsRequest);
    });
  }
}

/**
 * Packets the kernel has dropped so far at the loopback UDP sockets on `ports` (/proc/net/udp):
 * all that arrived at a socket nobody reads, but the one or two its buffer held.
 */
export function udpDrops(ports: Iterable<number>): number {
  const wanted = new Set(
    [...ports].map((port) => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`),
  );
  let drops = 0;
  let found = 0;
  // sl local_address rem_address st tx_queue:rx_queue ... drops; the local address is 0100007F:<port>.
  for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (!wanted.has(fields[1] ?? '')) continue;
    found++;
    drops += Number(fields.at(-1));
  }
  if (found < wanted.size)
    throw new Error(`${wanted.size - found} of the sink's sockets are gone from /proc/net/udp`);
  return drops;
}

/** Options of startBench(). */
export interface BenchOptions {
  /** Who consumes whom in a new room; ForwardAll (everyone hears everyone) when left out. */
  forwarding?: MediaServerOptions['forwarding'];
  /** The rooms' K, as the room tokens' `loudest` claim says; the default claim when left out. */
  loudest?: number;
  /** Its worker's RTC ports (46000-49999 when left out): two benches in one process need their own. */
  rtcPorts?: { min: number; max: number };
  /** A bus shared with other benches (their rooms' parts link over it), left open; its own otherwise. */
  bus?: Bus;
}

/** The media server with one worker, its `/rtc` endpoint, and what the benchmark adds to it. */
export interface Bench {
  media: MediaServer;
  workerPid: number;
  pacer: Pacer;
  /** A connected member `peerId` of `roomId`, with a fresh room token. */
  connect(roomId: string, peerId: string): Promise<TestMember>;
  room(roomId: string): Room;
  close(): Promise<void>;
}

export async function startBench({
  forwarding = () => new ForwardAll(),
  loudest,
  rtcPorts = { min: 46_000, max: 49_999 },
  bus: sharedBus,
}: BenchOptions = {}): Promise<Bench> {
  const config = loadMediaConfig({
    MEDIASOUP_WORKER_BIN: process.env.MEDIASOUP_WORKER_BIN,
    // `system`: Debian's libsrtp2 on NSS, to compare with the OpenSSL build (fast-srtp).
    MEDIA_SRTP_LIB_DIR: process.env.MEDIA_SRTP_LIB_DIR,
    MEDIA_NUM_WORKERS: '1',
    RTC_MIN_PORT: String(rtcPorts.min),
    RTC_MAX_PORT: String(rtcPorts.max),
    MEDIA_LISTEN_IP: '127.0.0.1',
    MEDIA_LOG_LEVEL: 'error',
    // Every room stays one router however many consumers it holds: these benchmarks measure
    // what one worker carries, not a room spread over several.
    MEDIA_CONSUMER_BUDGET: '1000000',
  });
  const bus = sharedBus ?? new MemoryBus(quiet);
  const media = await MediaServer.create({
    config,
    bus,
    logger: quiet,
    url: 'ws://127.0.0.1/rtc',
    secret: TEST_MEDIA_SECRET,
    forwarding,
  });
  const http = createServer((_request, response) => response.end());
  routeUpgrades(http, { [MEDIA_SOCKET_PATH]: media.rtc.endpoint });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  const pacer = await Pacer.create();
  const members: TestMember[] = [];
  const claims = loudest === undefined ? {} : { loudest };
  return {
    media,
    workerPid: media.pool.load.perWorker[0]?.pid as number,
    pacer,
    connect: async (roomId, peerId) => {
      const token = signRoomToken(roomId, peerId, claims);
      const query = new URLSearchParams({ roomId, peerId, token });
      const member = await TestMember.connect(`ws://127.0.0.1:${port}${MEDIA_SOCKET_PATH}?${query}`);
      members.push(member);
      return member;
    },
    room: (roomId) => {
      const room = media.rooms.get(roomId);
      if (!room) throw new Error(`no room ${roomId}`);
      return room;
    },
    close: async () => {
      pacer.close();
      for (const member of members) member.close();
      await media.close();
      http.closeAllConnections();
      http.close();
      if (!sharedBus) await bus.close();
    },
  };
}

/**
 * `peerId` joins `roomId` as a browser does (capabilities, a receiving transport, join), its
 * receiving PlainTransport sending plain RTP to `earPort`.
 */
export async function joinRoom(
  bench: Bench,
  member: TestMember,
  roomId: string,
  peerId: string,
  earPort: number,
) {
  const rtpCapabilities = await member.request('getRouterRtpCapabilities', {});
  const ear = await bench.room(roomId).createPlainTransport(peerId, { producing: false, consuming: true });
  await ear.connect({ ip: '127.0.0.1', port: earPort });
  return member.request('join', { displayName: peerId, device: { name: 'bench' }, rtpCapabilities });
}

/** SRTP profile 8 (RFC 7714): what this worker agrees with Chromium. */
export const AEAD_AES_256_GCM = 8;

/**
 * `member` joins as a browser does, its receiving WebRtcTransport asked for over protoo and
 * connected from the Ears socket `earPort` (ICE, then DTLS as client with `certificate`), so the
 * worker encrypts every packet it forwards to it with SRTP. Fails unless the transport agreed the
 * browser's cipher, AEAD_AES_256_GCM.
 */
export async function joinRoomAsBrowser(
  member: TestMember,
  peerId: string,
  ears: Ears,
  earPort: number,
  certificate: BotCertificate,
) {
  const rtpCapabilities = await member.request('getRouterRtpCapabilities', {});
  const transport = (await member.request('createWebRtcTransport', {
    producing: false,
    consuming: true,
  })) as {
    id: string;
    iceParameters: { usernameFragment: string; password: string };
    iceCandidates: { ip: string; port: number; protocol: string }[];
  };
  const candidate = transport.iceCandidates.find((c) => c.protocol === 'udp');
  if (!candidate) throw new Error('the receiving transport has no UDP candidate');
  await member.request('connectWebRtcTransport', {
    transportId: transport.id,
    dtlsParameters: botDtlsParameters(certificate),
  });
  const { usernameFragment, password } = transport.iceParameters;
  const profile = await ears.secure(earPort, {
    ip: candidate.ip,
    port: candidate.port,
    usernameFragment,
    password,
  });
  if (profile !== AEAD_AES_256_GCM)
    throw new Error(`the transport agreed SRTP profile ${profile}, not AEAD_AES_256_GCM`);
  return member.request('join', { displayName: peerId, device: { name: 'bench' }, rtpCapabilities });
}

/**
 * `peerId` produces Opus through a PlainTransport, paced by the bench at `level` (-dBov); the voice
 * talks at once unless `silent`.
 */
export async function speak(
  bench: Bench,
  member: TestMember,
  roomId: string,
  peerId: string,
  ssrc: number,
  { level = 30, silent = false } = {},
): Promise<PacedVoice> {
  const mouth = await bench.room(roomId).createPlainTransport(peerId, { producing: true, consuming: false });
  await member.request('produce', {
    transportId: mouth.id,
    kind: 'audio',
    rtpParameters: opusRtpParameters(ssrc),
  });
  const voice = bench.pacer.voice(mouth.tuple.localPort, ssrc, level);
  if (!silent) voice.start();
  return voice;
}

/** Packets each consumer (by id) had sent when read, as the worker counts them, and when (the middle of the read). */
export interface SentPackets {
  byConsumer: Map<string, number>;
  at: number;
}

/** What `consumers` have sent so far; one closed meanwhile is left out. */
export async function sentPackets(consumers: readonly Consumer[]): Promise<SentPackets> {
  const start = performance.now();
  const byConsumer = new Map<string, number>();
  const read = async (consumer: Consumer) => {
    if (consumer.closed) return;
    const stats = await consumer.getStats().catch(() => []);
    for (const stat of stats) {
      if (stat.type === 'outbound-rtp')
        byConsumer.set(consumer.id, (stat as { packetCount: number }).packetCount);
    }
  };
  // In batches: a thousand requests at once stalled the worker's channel for good (mediasoup 3.8.4).
  for (let i = 0; i < consumers.length; i += STATS_BATCH) {
    await Promise.all(consumers.slice(i, i + STATS_BATCH).map(read));
  }
  return { byConsumer, at: (start + performance.now()) / 2 };
}

/**
 * Packets per second the consumers sent between two readings: one made in between counts from
 * zero; one closed in between is missed (with what it sent since the first reading).
 */
export function sentPerSecond(before: SentPackets, after: SentPackets): number {
  let packets = 0;
  for (const [id, count] of after.byConsumer) packets += count - (before.byConsumer.get(id) ?? 0);
  return packets / ((after.at - before.at) / 1000);
}
