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
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer } from '@voice/media-server';
import { lineChart, renderPng } from './chart.ts';
import { REPO_ROOT, RESULTS_DIR, report } from './harness.ts';
import {
  type Bench,
  cpuSeconds,
  Ears,
  isRtp,
  joinRoom,
  PACKET_MS,
  percentile,
  round,
  Sink,
  sentPackets,
  sentPerSecond,
  speak,
  startBench,
  udpSocket,
  until,
} from './rtpLoad.ts';

const JOINS = Number(process.env.BENCH_JOINS ?? 50);
const ROOM_SIZE = Number(process.env.BENCH_ROOM_SIZE ?? 10);
const MAX_CONSUMERS = Number(process.env.BENCH_MAX_CONSUMERS ?? 8000);
/** `sample`: only the first room's consumers are read back; `all`: every room's. */
const EARS = process.env.BENCH_EARS === 'all' ? 'all' : 'sample';
const CPU_LIMIT_PERCENT = 80;
/** After a step's rooms are added, before it is measured: the new consumers are all flowing. */
const SETTLE_MS = 1500;
const MEASURE_MS = 4000;
/** No step starts after this long under load. */
const LOAD_BUDGET_MS = 3 * 60_000;
const GOALS = { usPerForwardedPacket: 8, consumersPerWorker: 2500, joinP95Ms: 150 };

// --- Joins ------------------------------------------------------------------------------------

/** JOINS sequential joins into a room with one voice: WebSocket connect → first RTP packet, ms. */
async function measureJoins(bench: Bench): Promise<number[]> {
  const roomId = 'join-room';
  const speaker = await bench.connect(roomId, 'speaker');
  const unused = await udpSocket();
  await joinRoom(bench, speaker, roomId, 'speaker', unused.address().port);
  const voice = await speak(bench, speaker, roomId, 'speaker', 1);
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
    voice.stop();
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

/** Worker CPU over MEASURE_MS; the stats are read outside that window, as they cost the worker too. */
async function measureStep(
  bench: Bench,
  rooms: number,
  consumers: Consumer[],
  listened: Consumer[],
  ears: Ears,
): Promise<Step> {
  await sleep(SETTLE_MS);
  const before = await sentPackets(consumers);
  const listenedBefore = await sentPackets(listened);
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
  const after = await sentPackets(consumers);
  const listenedAfter = await sentPackets(listened);
  const forwardedPerSecond = sentPerSecond(before, after);
  const listenedForwardedPerSecond = sentPerSecond(listenedBefore, listenedAfter);
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

/** Worker CPU against consumers, with the 80% line. */
const cpuChart = (steps: Step[]) =>
  lineChart({
    title: `One mediasoup worker: CPU against active consumers (rooms of ${ROOM_SIZE}, Opus at 50 packets/s)`,
    xLabel: 'active consumers',
    yLabel: 'worker CPU (% of one core)',
    series: [{ name: 'worker', color: '#1f5fbf', points: steps.map((s) => [s.consumers, s.cpuPercent]) }],
    limits: [{ y: CPU_LIMIT_PERCENT, label: `${CPU_LIMIT_PERCENT}% of a core` }],
    yMax: 100,
    yTick: (percent) => `${percent}%`,
  });

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
