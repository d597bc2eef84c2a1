/**
 * npm run bench:sfu — what one mediasoup worker costs and carries. The media server runs in this
 * process with ONE worker; members are protoo clients with real room tokens (TestMember) that send
 * Opus RTP at 50 packets/s from a UDP socket into PlainTransports and receive through consumers on
 * PlainTransports, every member consuming every other member of its room (`ForwardAll`, not the
 * rooms' loudest-K: this measures what one worker forwards).
 *
 * 1. Joins: BENCH_JOINS (50) members join, one after another, a room where one member is already
 *    producing; each is timed from its WebSocket connect to the first RTP packet at its consuming
 *    transport (p50, p95), then leaves.
 * 2. Load: rooms of BENCH_ROOM_SIZE (10) members are added step by step; at each step the
 *    worker's own CPU time (/proc/<pid>/stat utime+stime) over a few seconds gives its CPU %,
 *    the consumers' own packet counts the packets forwarded per second, and their ratio the µs
 *    per forwarded packet. The first room's consumers send to a socket that counts what arrives
 *    (that every packet leaves the worker for real); the other rooms' consumers send to a socket
 *    that is never read, whose kernel buffer is full, so the kernel drops what arrives as a
 *    network would take it — reading a hundred thousand packets a second here would take a
 *    core of the two this machine has from the worker being measured, and a port nobody
 *    listens on costs the sender an ICMP answer per packet (BENCH_EARS=all reads every
 *    room's, as earlier runs did).
 *    It stops once the worker passes 80% of a core, at BENCH_MAX_CONSUMERS
 *    or after a few minutes, and draws worker CPU against consumers into bench-results/sfu-cpu.png
 *    (an SVG chart screenshot by the tests' Chromium).
 *
 * Goals: at most 8 µs per forwarded packet, at least 2,500 consumers per worker under 80% of a
 * core, join → first audio p95 under 150 ms. Everything on 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@voice/browser-bots';
import { MemoryBus } from '@voice/bus';
import {
  type Consumer,
  ForwardAll,
  type Logger,
  loadMediaConfig,
  MediaServer,
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
import { REPO_ROOT, RESULTS_DIR, report } from './harness.ts';

const JOINS = Number(process.env.BENCH_JOINS ?? 50);
const ROOM_SIZE = Number(process.env.BENCH_ROOM_SIZE ?? 10);
const MAX_CONSUMERS = Number(process.env.BENCH_MAX_CONSUMERS ?? 8000);
/** `sample`: only the first room's consumers are read back; `all`: every room's. */
const EARS = process.env.BENCH_EARS === 'all' ? 'all' : 'sample';
/** Opus in 20 ms frames. */
const PACKET_MS = 20;
const CPU_LIMIT_PERCENT = 80;
/** After a step's rooms are added, before it is measured: the new consumers are all flowing. */
const SETTLE_MS = 1500;
const MEASURE_MS = 4000;
/** No step starts after this long under load. */
const LOAD_BUDGET_MS = 3 * 60_000;
/** Consumer stats requests in flight at once. */
const STATS_BATCH = 100;
/** Any single wait: a step that takes longer has failed. */
const STEP_TIMEOUT_MS = 10_000;
const GOALS = { usPerForwardedPacket: 8, consumersPerWorker: 2500, joinP95Ms: 150 };

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString());
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Nearest-rank percentile of an ascending list. */
const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number);
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** CPU seconds (all threads) process `pid` has used so far, in user space and in the kernel. */
function cpuSeconds(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which may hold spaces; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / CLOCK_TICKS, system: Number(fields[12]) / CLOCK_TICKS };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** RTCP (second byte 192-223, where RTP has marker and payload type) is not audio. */
const isRtp = (message: Buffer) =>
  message.length >= 12 && ((message[1] ?? 0) < 192 || (message[1] ?? 0) > 223);

/**
 * A loopback UDP socket that is never read: a thread binds it with the smallest receive buffer
 * and then blocks, so the buffer fills at once and the kernel drops every later packet on
 * arrival, with no reader to wake and no ICMP answer to send.
 */
class Sink {
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

  /** The socket's port, once bound. */
  async port(): Promise<number> {
    return (await once(this.#thread, 'message'))[0] as number;
  }

  async close(): Promise<void> {
    Atomics.store(this.#stop, 0, 1);
    Atomics.notify(this.#stop, 0);
    await once(this.#thread, 'exit');
  }
}

async function udpSocket(onMessage: (message: Buffer) => void = () => {}): Promise<Socket> {
  const socket = createSocket('udp4');
  socket.on('message', onMessage);
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return socket;
}

/**
 * Sends every voice's Opus packets from one socket, 50 a second each, on phases spread over the
 * 20 ms; a late timer sends what is due, so each voice keeps its rate on average.
 */
class Pacer {
  readonly #socket: Socket;
  readonly #voices = new Set<{ port: number; ssrc: number; sent: number; startedAt: number }>();
  readonly #timer = setInterval(() => this.#tick(), 5);

  static async create(): Promise<Pacer> {
    return new Pacer(await udpSocket());
  }

  private constructor(socket: Socket) {
    this.#socket = socket;
  }

  /** Starts a voice to a producing transport's `port`; the returned function stops it. */
  add(port: number, ssrc: number): () => void {
    const voice = { port, ssrc, sent: 0, startedAt: performance.now() - Math.random() * PACKET_MS };
    this.#voices.add(voice);
    this.#tick();
    return () => this.#voices.delete(voice);
  }

  close(): void {
    clearInterval(this.#timer);
    this.#socket.close();
  }

  #tick(): void {
    const now = performance.now();
    for (const voice of this.#voices) {
      const due = Math.floor((now - voice.startedAt) / PACKET_MS) + 1;
      for (; voice.sent < due; voice.sent++) {
        this.#socket.send(opusPacket(voice.sent + 1, voice.ssrc), voice.port, '127.0.0.1');
      }
    }
  }
}

/**
 * The sockets the load's consumers send to, read and counted on a thread of their own: at a
 * hundred thousand packets a second, reading them on the main thread would starve the mediasoup
 * channel, the members' protoo and the pacer, which all live there.
 */
class Ears {
  static readonly #code = `
    const { parentPort } = require('node:worker_threads');
    const { createSocket } = require('node:dgram');
    let received = 0;
    const sockets = [];
    parentPort.on('message', (command) => {
      if (command === 'count') return parentPort.postMessage(received);
      if (command === 'close') return parentPort.close(), sockets.forEach((socket) => socket.close());
      const socket = createSocket({ type: 'udp4', recvBufferSize: ${4 * 1024 * 1024} });
      socket.on('message', (m) => { if (m.length >= 12 && (m[1] < 192 || m[1] > 223)) received++; });
      socket.bind(0, '127.0.0.1', () => parentPort.postMessage(socket.address().port));
      sockets.push(socket);
    });`;
  readonly #thread = new Worker(Ears.#code, { eval: true });

  /** A new socket's port. */
  open(): Promise<number> {
    return this.#ask('open');
  }

  /** RTP packets received so far by every socket. */
  received(): Promise<number> {
    return this.#ask('count');
  }

  async close(): Promise<void> {
    this.#thread.postMessage('close');
    await once(this.#thread, 'exit');
  }

  async #ask(command: string): Promise<number> {
    const reply = once(this.#thread, 'message');
    this.#thread.postMessage(command);
    return (await reply)[0] as number;
  }
}

/** The media server with one worker, its `/rtc` endpoint, and what the benchmark adds to it. */
interface Bench {
  media: MediaServer;
  workerPid: number;
  pacer: Pacer;
  /** A connected member `peerId` of `roomId`, with a fresh room token. */
  connect(roomId: string, peerId: string): Promise<TestMember>;
  room(roomId: string): Room;
  close(): Promise<void>;
}

async function startBench(): Promise<Bench> {
  const config = loadMediaConfig({
    MEDIASOUP_WORKER_BIN: process.env.MEDIASOUP_WORKER_BIN,
    MEDIA_NUM_WORKERS: '1',
    RTC_MIN_PORT: '46000',
    RTC_MAX_PORT: '49999',
    MEDIA_LISTEN_IP: '127.0.0.1',
    MEDIA_LOG_LEVEL: 'error',
  });
  const bus = new MemoryBus(quiet);
  const media = await MediaServer.create({
    config,
    bus,
    logger: quiet,
    url: 'ws://127.0.0.1/rtc',
    secret: TEST_MEDIA_SECRET,
    // What a worker carries when everyone consumes everyone (rooms forward their K loudest).
    forwarding: () => new ForwardAll(),
  });
  const http = createServer((_request, response) => response.end());
  routeUpgrades(http, { [MEDIA_SOCKET_PATH]: media.rtc.endpoint });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  const pacer = await Pacer.create();
  const members: TestMember[] = [];
  return {
    media,
    workerPid: media.pool.load.perWorker[0]?.pid as number,
    pacer,
    connect: async (roomId, peerId) => {
      const query = new URLSearchParams({ roomId, peerId, token: signRoomToken(roomId, peerId) });
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
      await bus.close();
    },
  };
}

/**
 * `peerId` joins `roomId` as a browser does (capabilities, a receiving transport, join), its
 * receiving PlainTransport sending to `earPort`.
 */
async function joinRoom(bench: Bench, member: TestMember, roomId: string, peerId: string, earPort: number) {
  const rtpCapabilities = await member.request('getRouterRtpCapabilities', {});
  const ear = await bench.room(roomId).createPlainTransport(peerId, { producing: false, consuming: true });
  await ear.connect({ ip: '127.0.0.1', port: earPort });
  await member.request('join', { displayName: peerId, device: { name: 'bench' }, rtpCapabilities });
}

/** `peerId` produces Opus through a PlainTransport, paced by the bench; returns how to stop it. */
async function speak(bench: Bench, member: TestMember, roomId: string, peerId: string, ssrc: number) {
  const mouth = await bench.room(roomId).createPlainTransport(peerId, { producing: true, consuming: false });
  await member.request('produce', {
    transportId: mouth.id,
    kind: 'audio',
    rtpParameters: opusRtpParameters(ssrc),
  });
  return bench.pacer.add(mouth.tuple.localPort, ssrc);
}

// --- Joins ------------------------------------------------------------------------------------

/** JOINS sequential joins into a room with one voice: WebSocket connect → first RTP packet, ms. */
async function measureJoins(bench: Bench): Promise<number[]> {
  const roomId = 'join-room';
  const speaker = await bench.connect(roomId, 'speaker');
  const unused = await udpSocket();
  await joinRoom(bench, speaker, roomId, 'speaker', unused.address().port);
  const stop = await speak(bench, speaker, roomId, 'speaker', 1);
  const times: number[] = [];
  try {
    for (let i = 1; i <= JOINS; i++) {
      const peerId = `joiner-${i}`;
      let firstPacketAt: number | undefined;
      const ear = await udpSocket((message) => {
        if (firstPacketAt === undefined && isRtp(message)) firstPacketAt = performance.now();
      });
      // The API signs the token before the browser connects: outside the timed part.
      const started = performance.now();
      const member = await bench.connect(roomId, peerId);
      await joinRoom(bench, member, roomId, peerId, ear.address().port);
      await until(() => firstPacketAt !== undefined, `${peerId}'s first packet`);
      times.push((firstPacketAt as number) - started);
      member.close();
      ear.close();
      await until(() => bench.room(roomId).peerCount === 1, `${peerId} to leave`);
    }
  } finally {
    stop();
    speaker.close();
    unused.close();
  }
  return times;
}

// --- Load -------------------------------------------------------------------------------------

/** One load step as measured. */
interface Step {
  rooms: number;
  consumers: number;
  forwardedPerSecond: number;
  /** Packets the bench's sockets received from the consumers they listen to, per second. */
  receivedPerSecond: number;
  /** What those consumers forwarded per second, as the worker counts: received should match it. */
  listenedForwardedPerSecond: number;
  cpuPercent: number;
  /** The part of cpuPercent spent in the kernel (sending, mostly). */
  systemCpuPercent: number;
  usPerForwardedPacket: number;
  /** This process (members, senders, receivers) shares the machine: its CPU, for context. */
  benchCpuPercent: number;
}

/** A room of ROOM_SIZE members, every one producing and consuming all the others. */
async function addRoom(bench: Bench, index: number, earPort: number): Promise<Consumer[]> {
  const roomId = `load-${index}`;
  const peerIds = Array.from({ length: ROOM_SIZE }, (_, k) => `r${index}-m${k}`);
  const members = await Promise.all(peerIds.map((peerId) => bench.connect(roomId, peerId)));
  await Promise.all(
    members.map((member, k) => joinRoom(bench, member, roomId, peerIds[k] as string, earPort)),
  );
  await Promise.all(
    members.map((member, k) =>
      speak(bench, member, roomId, peerIds[k] as string, index * ROOM_SIZE + k + 100),
    ),
  );
  const room = bench.room(roomId);
  // Each member's consumer of each other member's producer (a Peer keeps its consumers private).
  const producerIds = () => peerIds.flatMap((peerId) => room.peer(peerId)?.producer?.id ?? []);
  const consumers = () =>
    peerIds.flatMap((peerId) => producerIds().flatMap((id) => room.peer(peerId)?.consumerOf(id) ?? []));
  await until(
    () => consumers().length === ROOM_SIZE * (ROOM_SIZE - 1) && consumers().every((c) => !c.paused),
    `every consumer of ${roomId} resumed`,
  );
  return consumers();
}

/** Packets sent by `consumers` so far, as the worker counts them, and when (the middle of the count). */
async function forwarded(consumers: Consumer[]): Promise<{ packets: number; at: number }> {
  const start = performance.now();
  const stats: Awaited<ReturnType<Consumer['getStats']>>[] = [];
  // In batches: a thousand requests at once stalled the worker's channel for good (mediasoup 3.8.4).
  for (let i = 0; i < consumers.length; i += STATS_BATCH) {
    stats.push(...(await Promise.all(consumers.slice(i, i + STATS_BATCH).map((c) => c.getStats()))));
  }
  const at = (start + performance.now()) / 2;
  let packets = 0;
  for (const list of stats) {
    for (const stat of list)
      if (stat.type === 'outbound-rtp') packets += (stat as { packetCount: number }).packetCount;
  }
  return { packets, at };
}

/** Worker CPU over MEASURE_MS; the stats are read outside that window, as they cost the worker too. */
async function measureStep(
  bench: Bench,
  rooms: number,
  consumers: Consumer[],
  listened: Consumer[],
  ears: Ears,
): Promise<Step> {
  await sleep(SETTLE_MS);
  const before = await forwarded(consumers);
  const listenedBefore = await forwarded(listened);
  const receivedBefore = await ears.received();
  const cpuBefore = cpuSeconds(bench.workerPid);
  const benchCpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  await sleep(MEASURE_MS);
  const cpuAfter = cpuSeconds(bench.workerPid);
  const cpu = cpuAfter.user + cpuAfter.system - (cpuBefore.user + cpuBefore.system);
  const systemCpu = cpuAfter.system - cpuBefore.system;
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const seconds = (performance.now() - startedAt) / 1000;
  const receivedPerSecond = ((await ears.received()) - receivedBefore) / seconds;
  const after = await forwarded(consumers);
  const listenedAfter = await forwarded(listened);
  const forwardedPerSecond = (after.packets - before.packets) / ((after.at - before.at) / 1000);
  const listenedForwardedPerSecond =
    (listenedAfter.packets - listenedBefore.packets) / ((listenedAfter.at - listenedBefore.at) / 1000);
  return {
    rooms,
    consumers: consumers.length,
    forwardedPerSecond: Math.round(forwardedPerSecond),
    receivedPerSecond: Math.round(receivedPerSecond),
    listenedForwardedPerSecond: Math.round(listenedForwardedPerSecond),
    cpuPercent: round((cpu / seconds) * 100),
    systemCpuPercent: round((systemCpu / seconds) * 100),
    usPerForwardedPacket: round((cpu / seconds / forwardedPerSecond) * 1e6, 2),
    benchCpuPercent: round(((benchCpu.user + benchCpu.system) / 1e6 / seconds) * 100),
  };
}

/** Adds rooms (1, 2, 4, 8, then 4 more a step) until the worker passes CPU_LIMIT_PERCENT or a cap. */
async function measureLoad(bench: Bench): Promise<{ steps: Step[]; stoppedBy: string }> {
  const ears = new Ears();
  const consumers: Consumer[] = [];
  const listened: Consumer[] = [];
  const drain = new Sink();
  const sink = await drain.port();
  const steps: Step[] = [];
  const startedAt = Date.now();
  let rooms = 0;
  try {
    for (;;) {
      const target = rooms < 8 ? Math.max(1, rooms * 2) : rooms + 4;
      if (target * ROOM_SIZE * (ROOM_SIZE - 1) > MAX_CONSUMERS)
        return { steps, stoppedBy: 'BENCH_MAX_CONSUMERS' };
      if (Date.now() - startedAt > LOAD_BUDGET_MS) return { steps, stoppedBy: 'time budget' };
      for (; rooms < target; rooms++) {
        // One socket per listened room receives what its members' consumers send.
        const listen = rooms === 0 || EARS === 'all';
        const added = await addRoom(bench, rooms, listen ? await ears.open() : sink);
        consumers.push(...added);
        if (listen) listened.push(...added);
      }
      const step = await measureStep(bench, rooms, consumers, listened, ears);
      steps.push(step);
      console.log(
        `${step.consumers} consumers: worker ${step.cpuPercent}% of a core (${step.systemCpuPercent}% in the kernel), ${step.forwardedPerSecond} packets/s forwarded, ${step.usPerForwardedPacket} µs each (listened: ${step.listenedForwardedPerSecond} forwarded, ${step.receivedPerSecond} received)`,
      );
      if (step.cpuPercent >= CPU_LIMIT_PERCENT)
        return { steps, stoppedBy: `${CPU_LIMIT_PERCENT}% of a core` };
    }
  } finally {
    await ears.close();
    await drain.close();
  }
}

/**
 * Consumers at CPU_LIMIT_PERCENT: interpolated between the steps either side of it, or
 * extrapolated from the last step's CPU per consumer if the load never got there.
 */
function consumersAtLimit(steps: Step[]): number {
  const over = steps.findIndex((step) => step.cpuPercent >= CPU_LIMIT_PERCENT);
  const last = steps.at(over === -1 ? -1 : over) as Step;
  const below = over > 0 ? steps[over - 1] : undefined;
  if (!below) return Math.round((last.consumers * CPU_LIMIT_PERCENT) / last.cpuPercent);
  const share = (CPU_LIMIT_PERCENT - below.cpuPercent) / (last.cpuPercent - below.cpuPercent);
  return Math.round(below.consumers + share * (last.consumers - below.consumers));
}

// --- Plot -------------------------------------------------------------------------------------

/** A line chart of worker CPU against consumers, with the 80% line, as SVG. */
function cpuChart(steps: Step[]): string {
  const [width, height] = [800, 480];
  const box = { left: 70, right: 30, top: 50, bottom: 60 };
  const maxConsumers = Math.ceil(Math.max(...steps.map((s) => s.consumers), 1) / 500) * 500;
  const x = (consumers: number) => box.left + (consumers / maxConsumers) * (width - box.left - box.right);
  const y = (percent: number) => height - box.bottom - (percent / 100) * (height - box.top - box.bottom);
  const grid: string[] = [];
  for (let percent = 0; percent <= 100; percent += 20) {
    grid.push(
      `<line x1="${box.left}" x2="${width - box.right}" y1="${y(percent)}" y2="${y(percent)}" stroke="#ddd"/>`,
      `<text x="${box.left - 8}" y="${y(percent) + 4}" text-anchor="end">${percent}%</text>`,
    );
  }
  const tick = maxConsumers / 5;
  for (let consumers = 0; consumers <= maxConsumers; consumers += tick) {
    grid.push(
      `<text x="${x(consumers)}" y="${height - box.bottom + 20}" text-anchor="middle">${consumers}</text>`,
    );
  }
  const points = steps.map((s) => `${x(s.consumers)},${y(s.cpuPercent)}`).join(' ');
  const dots = steps.map(
    (s) => `<circle cx="${x(s.consumers)}" cy="${y(s.cpuPercent)}" r="4" fill="#1f5fbf"/>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="13">
<rect width="${width}" height="${height}" fill="white"/>
<text x="${width / 2}" y="28" text-anchor="middle" font-size="16">One mediasoup worker: CPU against active consumers (rooms of ${ROOM_SIZE}, Opus at 50 packets/s)</text>
${grid.join('\n')}
<line x1="${box.left}" x2="${width - box.right}" y1="${y(CPU_LIMIT_PERCENT)}" y2="${y(CPU_LIMIT_PERCENT)}" stroke="#c0392b" stroke-dasharray="6 4"/>
<text x="${box.left + 8}" y="${y(CPU_LIMIT_PERCENT) - 6}" text-anchor="start" fill="#c0392b">${CPU_LIMIT_PERCENT}% of a core</text>
<polyline points="${points}" fill="none" stroke="#1f5fbf" stroke-width="2"/>
${dots.join('\n')}
<text x="${(box.left + width - box.right) / 2}" y="${height - 15}" text-anchor="middle">active consumers</text>
<text transform="translate(18 ${(box.top + height - box.bottom) / 2}) rotate(-90)" text-anchor="middle">worker CPU (% of one core)</text>
</svg>`;
}

/** Screenshots `svg` with the tests' Chromium into `file`. */
async function renderPng(svg: string, file: string): Promise<void> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 800, height: 480 } });
    await page.setContent(`<body style="margin:0">${svg}</body>`);
    await page.locator('svg').screenshot({ path: file });
  } finally {
    await browser.close();
  }
}

// --- Run --------------------------------------------------------------------------------------

const bench = await startBench();
let joins: number[];
let load: Awaited<ReturnType<typeof measureLoad>>;
try {
  console.log(`${JOINS} joins one after another…`);
  joins = (await measureJoins(bench)).sort((a, b) => a - b);
  console.log(`rooms of ${ROOM_SIZE}, stepping up until the worker passes ${CPU_LIMIT_PERCENT}%…`);
  load = await measureLoad(bench);
} finally {
  await bench.close();
}

const { steps } = load;
const under = steps.filter((step) => step.cpuPercent < CPU_LIMIT_PERCENT);
const heaviest = under.at(-1) ?? steps.at(-1);
if (!heaviest) throw new Error('no load step was measured');
const plot = path.join(RESULTS_DIR, 'sfu-cpu.png');
await renderPng(cpuChart(steps), plot);
const consumersUnderLimit = under.at(-1)?.consumers ?? 0;
const joinP95Ms = round(percentile(joins, 95));
report('sfu', {
  note: `one worker; rooms of ${ROOM_SIZE} members each producing Opus at ${1000 / PACKET_MS} packets/s through PlainTransports and consuming the others; worker CPU from /proc/<pid>/stat over ${MEASURE_MS / 1000} s per step, forwarded packets from the consumers' stats; ${EARS === 'all' ? "every room's consumers read back by the bench" : "the first room's consumers read back by the bench, the others sent to a socket never read, whose full buffer drops them"}`,
  joins: {
    note: 'WebSocket connect → first RTP packet at the joiner’s consuming PlainTransport, into a room with one member producing',
    count: joins.length,
    p50Ms: round(percentile(joins, 50)),
    p95Ms: joinP95Ms,
    maxMs: round(joins.at(-1) ?? Number.NaN),
  },
  steps,
  stoppedBy: load.stoppedBy,
  usPerForwardedPacket: heaviest.usPerForwardedPacket,
  usPerForwardedPacketAt: `${heaviest.consumers} consumers, ${heaviest.cpuPercent}% of a core`,
  consumersUnder80Percent: consumersUnderLimit,
  consumersAt80PercentEstimated: consumersAtLimit(steps),
  plot: path.relative(REPO_ROOT, plot),
  goals: GOALS,
  met: {
    usPerForwardedPacket: heaviest.usPerForwardedPacket <= GOALS.usPerForwardedPacket,
    consumersPerWorker: consumersUnderLimit >= GOALS.consumersPerWorker,
    joinP95: joinP95Ms < GOALS.joinP95Ms,
  },
});
