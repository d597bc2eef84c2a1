/**
 * npm run bench:large-room — one room of a thousand members on ONE mediasoup worker (a room is
 * one router), with loudest-K forwarding (K = 3), and the same room forwarding every voice for
 * comparison. The media server runs in this process behind its real `/rtc` endpoint; members are
 * protoo clients with real room tokens (TestMember). Listeners receive as browsers do: a
 * WebRtcTransport asked for over protoo, connected by ICE and a DTLS handshake offering Chromium's
 * SRTP profiles (dtls.ts), so that the worker encrypts every packet it forwards with the cipher it
 * agrees with Chromium, AEAD_AES_256_GCM, and sends it to a socket of each listener's own.
 * Everything on 127.0.0.1.
 *
 * The room fills at BENCH_JOIN_RATE (20) joins a second up to BENCH_MEMBERS (1000), pausing every
 * BENCH_STEP (100) members to measure. The first 20 members also send: they follow a seeded
 * script of turns (conversation.ts: 2-6 talking at once, overlapping, changing every 1-3 s) at
 * levels from -20 to -58 dBov in the RTP audio-level extension, 50 packets a second while
 * talking and nothing while silent (as Opus DTX). Most listeners connect from sockets that nobody
 * reads once connected (sink ears, sealed before each step is measured: the kernel drops at their
 * full buffers); 50 listeners spread over the join order connect from sockets read and timed on a
 * thread of their own (Ears). With BENCH_SRTP=0 they receive plain RTP through PlainTransports
 * instead, the unread ones all into one socket (Sink).
 *
 * At each step (1 s to settle, 4 s measured), and for the comparison run the same:
 * - worker CPU (/proc/<pid>/stat), this process's CPU less the Ears thread (the media server's
 *   Node side, but also the 1,000 bots and the pacer: an upper bound of the server's), and the
 *   machine's, in % of one core;
 * - outgoing packets a second, counted where they land: the unread sockets' drops in /proc/net/udp
 *   (their RTCP too, under 1%) and what the Ears read; ÷ (K × members × 50) is the forwarding
 *   ratio, and ÷ what the talk calls for (min(K, voices talking) × 50 per member) the delivery,
 *   which falls well under 1 once the worker cannot keep up;
 * - worker and process RSS (VmRSS), per member over the empty server's.
 * While the room fills: every message one early member (the first who only listens) receives —
 * notifications and `newConsumer` requests — a second, and its `peersChanged` alone.
 * At 1,000: BENCH_PROBES (50) members join one at a time, each timed from its WebSocket connect to
 * its first RTP packet, and leave; then BENCH_SWITCHES (10) times three talkers talk alone until
 * they are the forwarded three, one stops, a second later a talker not forwarded starts: the time
 * from its first packet sent to its first packet at each sampled listener (p95 over listeners,
 * median over the repetitions).
 * The comparison (ForwardAll) fills the same way and steps, up to BENCH_COMPARE_MEMBERS (300)
 * or until the worker passes 90% of a core: the same seed and join rate put each of its steps on
 * the same stretch of the script as the loudest-K run's step of the same size.
 *
 * The room and its measurements are botRoom.ts; this file runs the two rooms and reports.
 *
 * Goals at 1,000 members: ratio ≤ 1.05; worker + process ≤ 1.5 cores, counted as met only while
 * the worker keeps up (delivery ≥ 0.9: a saturated worker's CPU says nothing of what the room
 * needs, so an estimate from the heaviest step that kept up is printed beside it); join → first
 * audio p95 ≤ 150 ms; a new speaker heard by 95% of the sampled listeners ≤ 300 ms; ≤ 2 messages
 * a second to a member while the room fills (all of them, and `peersChanged` alone).
 *
 * Prints every figure with its goal, writes bench-results/large-room.json and plots CPU and
 * outgoing packets against members, both runs on each, into bench/results/large-room-cpu.png and
 * large-room-packets.png. Knobs: BENCH_MEMBERS, BENCH_COMPARE_MEMBERS, BENCH_JOIN_RATE,
 * BENCH_STEP, BENCH_PROBES, BENCH_SWITCHES, BENCH_SEED (1: the script), BENCH_SRTP=0 (plain RTP
 * out through PlainTransports, to see what encryption and ICE cost), BENCH_TURNS=0 (three voices throughout, to see what the
 * turns cost). Run from the repository root with MEDIASOUP_WORKER_BIN unset (the config finds
 * the Debian worker) on a machine otherwise idle: the "others" figure of each step says how idle
 * it was. Takes about six minutes, and stops itself after fourteen.
 */
import path from 'node:path';
import { ForwardAll, LoudestK, loadMediaConfig } from '@voice/media-server';
import {
  BotRoom,
  type BotRoomOptions,
  type FillResult,
  MEASURE_MS,
  MEMBERSHIP_TAIL_MS,
  PACKETS_PER_SECOND,
  type Step,
  type Switch,
} from './botRoom.ts';
import { lineChart, renderPng } from './chart.ts';
import { REPO_ROOT, report } from './harness.ts';
import { percentile, round } from './rtpLoad.ts';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1000);
const COMPARE_MEMBERS = Number(process.env.BENCH_COMPARE_MEMBERS ?? 300);
const JOINS_PER_SECOND = Number(process.env.BENCH_JOIN_RATE ?? 20);
const STEP = Number(process.env.BENCH_STEP ?? 100);
const PROBES = Number(process.env.BENCH_PROBES ?? 50);
const SWITCHES = Number(process.env.BENCH_SWITCHES ?? 10);
const SEED = Number(process.env.BENCH_SEED ?? 1);
/** BENCH_SRTP=0: listeners receive plain RTP through PlainTransports (to see what ICE and SRTP cost). */
const SRTP = process.env.BENCH_SRTP !== '0';
/** BENCH_TURNS=0: the first K talkers talk throughout, nobody else (to see what the turns cost). */
const TURNS = process.env.BENCH_TURNS !== '0';
const K = 3;
const TALKERS = 20;
/** Listeners whose packets are counted and timed. */
const SAMPLED = 50;
/** The comparison stops once its worker passes this (% of a core). */
const COMPARE_CPU_LIMIT = 90;
/**
 * Below this share of what the talk calls for, the worker is not keeping up (see Step.delivery).
 * Not 1: a voice that starts is forwarded only once its level has been observed (a few hundred
 * ms), which costs a light load up to a tenth.
 */
const DELIVERED = 0.9;
/** The whole benchmark: past this it has hung somewhere, and stops with an error. */
const RUN_TIMEOUT_MS = 14 * 60_000;
const PLOTS_DIR = path.join(REPO_ROOT, 'bench', 'results');
const GOALS = {
  packetRatio: 1.05,
  totalCpuCores: 1.5,
  joinP95Ms: 150,
  newSpeakerP95Ms: 300,
  signallingPerSecond: 2,
};

// A last resort for a hang this file did not foresee: the run must end by itself.
setTimeout(() => {
  console.error(`bench:large-room did not finish within ${RUN_TIMEOUT_MS / 60_000} minutes`);
  process.exit(1);
}, RUN_TIMEOUT_MS).unref();

const startedAt = performance.now();
/** Prints `line` after the minutes and seconds since the start. */
const say = (line: string) => {
  const seconds = Math.round((performance.now() - startedAt) / 1000);
  console.log(`[${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}] ${line}`);
};

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const shared: Omit<BotRoomOptions, 'name' | 'forwarding' | 'cap' | 'members'> = {
  k: K,
  talkers: TALKERS,
  sampled: SAMPLED,
  joinsPerSecond: JOINS_PER_SECOND,
  srtp: SRTP,
  turns: TURNS,
  seed: SEED,
};

say(
  `loudest-${K}: ${MEMBERS} members joining at ${JOINS_PER_SECOND}/s, ${TALKERS} of them talking, measured every ${STEP}…`,
);
let policy: LoudestK | undefined;
const main = await BotRoom.open({
  ...shared,
  name: `loudest-${K}`,
  cap: K,
  members: MEMBERS,
  // The rooms' default policy, made here so that the bench can see whom it forwards.
  forwarding: () => {
    policy = new LoudestK({ k: K });
    return policy;
  },
});
const mainBaseline = main.baseline;
let mainFill: FillResult;
let probes: number[];
let switches: Switch[];
try {
  mainFill = await main.fill(MEMBERS, STEP);
  say(`${PROBES} members join the full room one at a time…`);
  probes = await main.probes(PROBES);
  say(`${SWITCHES} new speakers after a forwarded voice fell silent…`);
  if (!policy) throw new Error('the room was made without the bench’s policy');
  switches = await main.newSpeakers(SWITCHES, policy);
} finally {
  await main.close();
}

say(`every voice forwarded: up to ${COMPARE_MEMBERS} members, measured every ${STEP}…`);
const compare = await BotRoom.open({
  ...shared,
  name: 'forward-all',
  cap: Number.POSITIVE_INFINITY,
  members: COMPARE_MEMBERS,
  forwarding: () => new ForwardAll(),
});
let compareFill: FillResult;
try {
  compareFill = await compare.fill(
    COMPARE_MEMBERS,
    // The same steps: the same seed and join rate put each step's window on the same stretch of
    // the script as the loudest-K run's, so the two are compared under the same talk.
    STEP,
    (step) => step.workerCpuPercent >= COMPARE_CPU_LIMIT,
  );
} finally {
  await compare.close();
}

// --- Figures ----------------------------------------------------------------------------------

say('figures and plots…');

const full = mainFill.steps.at(-1) as Step;
const setting = `${TURNS ? `${TALKERS} talking in turns` : `${K} talking throughout`}, ${SRTP ? 'SRTP AES-GCM' : 'plain RTP'}`;
const joinP95Ms = round(percentile(probes, 95));
const newSpeakerP95Ms = round(median(switches.map((s) => s.p95Ms)));
const { signalling } = mainFill;
const signallingPerSecond = round(signalling.messages / signalling.seconds, 2);
const peersChangedPerSecond = round(signalling.peersChanged / signalling.seconds, 2);
const perMemberKb = (step: Step, baseline: BotRoom['baseline']) => ({
  workerKb: round((step.workerRssMb * 1024 - baseline.workerKb) / step.members),
  processKb: round((step.processRssMb * 1024 - baseline.processKb) / step.members),
});
const memoryPerMember = perMemberKb(full, mainBaseline);
const worstRatio = Math.max(...mainFill.steps.map((s) => s.packetRatio));
// The steps before the worker fell behind, and what the room would take from a worker that did not.
const firstBehind = mainFill.steps.findIndex((s) => s.delivery < DELIVERED);
const kept = firstBehind === -1 ? mainFill.steps : mainFill.steps.slice(0, firstBehind);
const keptUpTo = kept.at(-1)?.members ?? 0;
// The heaviest step that kept up, scaled to MEMBERS: a floor, as the worker's cost per packet
// grows with the members (every turn changes every listener's consumers).
const basis = kept.at(-1);
const estimate = basis
  ? {
      from: `${basis.members} members: ${basis.workerUsPerPacket} µs of worker per packet, process ${basis.processCpuPercent}%`,
      workerCores: round((basis.workerUsPerPacket * K * MEMBERS * PACKETS_PER_SECOND) / 1e6, 2),
      processCores: round(((basis.processCpuPercent / 100) * MEMBERS) / basis.members, 2),
    }
  : null;
const cpuMet = full.totalCpuCores <= GOALS.totalCpuCores && full.delivery >= DELIVERED;

await renderPng(
  lineChart({
    title: `One room, one worker: CPU against members (${setting})`,
    xLabel: 'members',
    yLabel: 'CPU (% of one core)',
    series: [
      {
        name: `loudest-${K}: worker`,
        color: '#1f5fbf',
        points: mainFill.steps.map((s) => [s.members, s.workerCpuPercent]),
      },
      {
        name: `loudest-${K}: worker + Node process (with the bots)`,
        color: '#7fa7e0',
        points: mainFill.steps.map((s) => [s.members, s.totalCpuCores * 100]),
      },
      {
        name: 'every voice: worker',
        color: '#d35400',
        points: compareFill.steps.map((s) => [s.members, s.workerCpuPercent]),
      },
      {
        name: 'every voice: worker + Node process',
        color: '#f0a860',
        points: compareFill.steps.map((s) => [s.members, s.totalCpuCores * 100]),
      },
    ],
    limits: [{ y: GOALS.totalCpuCores * 100, label: `goal: ${GOALS.totalCpuCores} cores in total at 1,000` }],
    xMax: Math.max(MEMBERS, COMPARE_MEMBERS),
    yTick: (percent) => `${percent}%`,
  }),
  path.join(PLOTS_DIR, 'large-room-cpu.png'),
);
await renderPng(
  lineChart({
    title: `One room, one worker: packets sent a second against members (${setting})`,
    xLabel: 'members',
    yLabel: 'packets/s sent by the worker',
    series: [
      {
        name: `loudest-${K}`,
        color: '#1f5fbf',
        points: mainFill.steps.map((s) => [s.members, s.outgoingPerSecond]),
      },
      {
        name: 'every voice',
        color: '#d35400',
        points: compareFill.steps.map((s) => [s.members, s.outgoingPerSecond]),
      },
      {
        name: `K × members × 50 (K = ${K})`,
        color: '#555',
        dashed: true,
        points: [
          [0, 0],
          [MEMBERS, K * MEMBERS * PACKETS_PER_SECOND],
        ],
      },
    ],
    xMax: Math.max(MEMBERS, COMPARE_MEMBERS),
  }),
  path.join(PLOTS_DIR, 'large-room-packets.png'),
);

/** Which libsrtp2 the worker encrypts with (MEDIA_SRTP_LIB_DIR; see install-system-deps.sh fast-srtp). */
const srtpLibDir = loadMediaConfig({ MEDIA_SRTP_LIB_DIR: process.env.MEDIA_SRTP_LIB_DIR }).srtpLibDir;
const srtpLibrary = srtpLibDir ? `libsrtp2 on OpenSSL (${srtpLibDir})` : "Debian's libsrtp2 on NSS";

report('large-room', {
  srtpLibrary,
  note: `one room on one mediasoup worker, encrypting with ${srtpLibrary}; ${TALKERS} of the members send Opus (50 packets/s while talking, nothing while silent) ${TURNS ? `by a seeded script (seed ${SEED})` : `: the first ${K} throughout`}; listeners receiving ${SRTP ? 'as browsers: WebRtcTransports, ICE, DTLS, SRTP with AEAD_AES_256_GCM, a socket each' : 'plain RTP through PlainTransports'}; CPU from /proc over ${MEASURE_MS / 1000} s per step with nobody joining; "process" is this Node process less the thread that reads the sampled sockets: the media server's Node side, but also the bots' protoo clients and the pacer, so total CPU is an upper bound of the server's`,
  loudestK: {
    k: K,
    members: full.members,
    joinsPerSecond: mainFill.joinsPerSecond,
    joinRequestsMs: mainFill.joinRequestsMs,
    steps: mainFill.steps,
    signalling: {
      note: `what member m${TALKERS} (the first who only listens) received from its join until the room was full, counted over the join phases (and ${MEMBERSHIP_TAIL_MS} ms after each, for the last batched peersChanged)`,
      seconds: round(signalling.seconds),
      perSecond: signallingPerSecond,
      peersChangedPerSecond,
      byMethod: signalling.byMethod,
    },
    joins: {
      note: `probes joining the full room one at a time: WebSocket connect → first RTP packet at their socket (${SRTP ? 'a WebRtcTransport connected by ICE and DTLS, as a browser' : 'a PlainTransport'})`,
      count: probes.length,
      unheard: probes.filter((ms) => ms === Number.POSITIVE_INFINITY).length,
      p50Ms: round(percentile(probes, 50)),
      p95Ms: joinP95Ms,
      maxMs: round(probes.at(-1) ?? Number.NaN),
    },
    newSpeaker: {
      note: 'first packet sent by a talker who was not forwarded, while a forwarded voice had been silent for 1 s → first packet of it at each sampled listener; p95 over the listeners, median over the repetitions',
      medianP95Ms: newSpeakerP95Ms,
      medianP50Ms: round(median(switches.map((s) => s.p50Ms))),
      switches,
    },
    memory: {
      baselineMb: {
        worker: round(mainBaseline.workerKb / 1024),
        process: round(mainBaseline.processKb / 1024),
      },
      atFullMb: { worker: full.workerRssMb, process: full.processRssMb },
      perMemberKb: memoryPerMember,
      note: 'RSS over the empty server’s ÷ members; the process holds the bots’ protoo clients too',
    },
  },
  forwardAll: {
    members: compareFill.steps.at(-1)?.members,
    stoppedBy: compareFill.stoppedBy,
    joinsPerSecond: compareFill.joinsPerSecond,
    steps: compareFill.steps,
    // The worker's only: this process still held garbage of the first run when its baseline was read.
    workerMemoryPerMemberKb: compareFill.steps.at(-1)
      ? perMemberKb(compareFill.steps.at(-1) as Step, compare.baseline).workerKb
      : null,
  },
  plots: ['large-room-cpu.png', 'large-room-packets.png'].map((f) =>
    path.relative(REPO_ROOT, path.join(PLOTS_DIR, f)),
  ),
  goals: GOALS,
  figures: {
    packetRatio: full.packetRatio,
    worstPacketRatio: worstRatio,
    delivery: full.delivery,
    keptUpToMembers: keptUpTo,
    totalCpuCores: full.totalCpuCores,
    estimatedCoresAtFullDelivery: estimate,
    joinP95Ms,
    newSpeakerP95Ms,
    signallingPerSecond,
    peersChangedPerSecond,
  },
  met: {
    packetRatio: worstRatio <= GOALS.packetRatio,
    totalCpuCores: cpuMet,
    joinP95: joinP95Ms <= GOALS.joinP95Ms,
    newSpeakerP95: newSpeakerP95Ms <= GOALS.newSpeakerP95Ms,
    signallingPerSecond: signallingPerSecond <= GOALS.signallingPerSecond,
    peersChangedPerSecond: peersChangedPerSecond <= GOALS.signallingPerSecond,
  },
});

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
const last = compareFill.steps.at(-1);
console.log(`
At ${full.members} members, loudest-${K}, ${srtpLibrary} (goal → figure):
  outgoing packets/s ÷ (K × listeners × 50)  ≤ ${GOALS.packetRatio} → ${full.packetRatio} (worst step ${worstRatio}) ${verdict(worstRatio <= GOALS.packetRatio)}
    of what the talk called for, the worker sent ${full.delivery} (≥ ${DELIVERED} up to ${keptUpTo} members)
  media-server CPU, worker + process       ≤ ${GOALS.totalCpuCores} cores → ${full.totalCpuCores} (worker ${full.workerCpuPercent}%, process ${full.processCpuPercent}% with the bots) ${verdict(cpuMet)}${full.delivery < DELIVERED ? ': the worker did not keep up' : ''}
    estimated for a worker that kept up: ${estimate ? `${estimate.workerCores} cores of worker + ${estimate.processCores} of process (${estimate.from})` : 'no step kept up'}
  join → first audio p95                   ≤ ${GOALS.joinP95Ms} ms → ${joinP95Ms} ms ${verdict(joinP95Ms <= GOALS.joinP95Ms)}
  new speaker heard by 95% of listeners    ≤ ${GOALS.newSpeakerP95Ms} ms → ${newSpeakerP95Ms} ms (median of ${switches.length}) ${verdict(newSpeakerP95Ms <= GOALS.newSpeakerP95Ms)}
  messages a member receives while filling ≤ ${GOALS.signallingPerSecond}/s → ${signallingPerSecond}/s in all ${verdict(signallingPerSecond <= GOALS.signallingPerSecond)}; peersChanged ${peersChangedPerSecond}/s ${verdict(peersChangedPerSecond <= GOALS.signallingPerSecond)}
  memory per member                        worker ${memoryPerMember.workerKb} KB, process ${memoryPerMember.processKb} KB (with the bots)
Every voice forwarded: ${last?.members} members (${compareFill.stoppedBy}): worker ${last?.workerCpuPercent}% of a core, ratio ${last?.packetRatio}, delivery ${last?.delivery}`);
