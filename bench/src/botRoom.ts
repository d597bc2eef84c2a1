/**
 * One room of bots on the bench's media server (bench:large-room): members join at a steady rate
 * with receiving PlainTransports, the first few also send and talk by a Conversation, most receive
 * into a Sink and a sample into Ears. The room measures itself in steps as it fills (CPU, packets,
 * memory, one early member's signalling), then times newcomers and new speakers.
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, ForwardingPolicy, LoudestK } from '@voice/media-server';
import type { TestMember } from '@voice/media-server/testing';
import { Conversation, seededRandom, shuffled } from './conversation.ts';
import { type BotCertificate, botCertificate } from './dtls.ts';
import { rssKb } from './harness.ts';
import {
  type Bench,
  clock,
  cpuSeconds,
  Ears,
  joinRoom,
  joinRoomAsBrowser,
  type PacedVoice,
  percentile,
  round,
  Sink,
  speak,
  startBench,
  udpDrops,
  until,
} from './rtpLoad.ts';

/** Opus packets a second of one talking voice. */
export const PACKETS_PER_SECOND = 50;
/** After a step's last join: its batched `peersChanged` (at most 2 a second) has gone out. */
export const MEMBERSHIP_TAIL_MS = 600;
export const MEASURE_MS = 4000;
const SETTLE_MS = 1000;
/** Joins under way at once at most: past that the fill falls behind its rate (and says so). */
const MAX_JOINS_IN_FLIGHT = 100;
/** A step's joins that take longer than this have stalled. */
const STEP_JOINS_TIMEOUT_MS = 60_000;
/** How long a probe waits for its first packet, and how many in a row may hear nothing before the rest are skipped. */
const PROBE_TIMEOUT_MS = 3000;
const PROBE_FAILURES_IN_A_ROW = 5;
/** How long a switch waits for the three to be forwarded, and for every sampled listener to hear the new talker. */
const FORWARDED_TIMEOUT_MS = 5000;
const HEAR_TIMEOUT_MS = 3000;
/** Switches in a row that nobody heard, after which the room is not serving and the rest are skipped. */
const SWITCH_FAILURES_IN_A_ROW = 3;
const ROOM_ID = 'large-room';

/** Options of BotRoom.open(). */
export interface BotRoomOptions {
  /** Printed with each step. */
  name: string;
  /** Who consumes whom in the room. */
  forwarding: () => ForwardingPolicy;
  /** The room tokens' `loudest`. */
  k: number;
  /** Voices a listener is due at once at most: K, or every voice (Infinity). */
  cap: number;
  /** Members it will fill to: the sampled listeners are spread over them. */
  members: number;
  talkers: number;
  /** Listeners whose packets are counted and timed. */
  sampled: number;
  joinsPerSecond: number;
  /** The receiving transports use SRTP, as a browser's would. */
  srtp: boolean;
  /** false: the first K talkers talk throughout, nobody else. */
  turns: boolean;
  seed: number;
}

/** One measured step: the room at `members`, nobody joining. */
export interface Step {
  members: number;
  consumers: number;
  meanTalking: number;
  workerCpuPercent: number;
  /** Worker CPU time per packet it sent. */
  workerUsPerPacket: number;
  workerKernelPercent: number;
  /** This process less the Ears thread: the media server's Node side, the bots and the pacer. */
  processCpuPercent: number;
  totalCpuCores: number;
  /** Everything else on the machine meanwhile (other work skews the figures). */
  otherCpuPercent: number;
  outgoingPerSecond: number;
  /** Outgoing packets ÷ (K × members × 50). */
  packetRatio: number;
  /**
   * Outgoing packets ÷ what the talk calls for: every member sent min(cap, voices talking) × 50
   * a second (time-weighted; a talker's own voice is not sent back to it, which this ignores,
   * 2% of the members). Well under 1: the worker is not keeping up.
   */
  delivery: number;
  /** Packets a second a sampled listener received: mean, least and most. */
  sampledPerListener: { mean: number; min: number; max: number };
  workerRssMb: number;
  processRssMb: number;
  eventLoopDelayP99Ms: number;
}

/** What the early member received while the room filled, and over how long. */
export interface Signalling {
  seconds: number;
  messages: number;
  peersChanged: number;
  byMethod: Record<string, number>;
}

/** What fill() measured. */
export interface FillResult {
  steps: Step[];
  stoppedBy: string;
  joinsPerSecond: number;
  /** WebSocket connect → join answered, while the room filled. */
  joinRequestsMs: { p50: number; p95: number };
  signalling: Signalling;
}

/** One new speaker: how long each sampled listener took to hear them (ms; null: not within the wait). */
export interface Switch {
  silent: string;
  newSpeaker: string;
  /** The three talking alone were the forwarded three within FORWARDED_TIMEOUT_MS. */
  threeForwarded: boolean;
  /** The one who fell silent still had its place when the new one started. */
  silentWasForwarded: boolean;
  heardMs: Array<number | null>;
  p50Ms: number;
  p95Ms: number;
}

/** A member of the room as the bench drives it. */
interface Bot {
  index: number;
  peerId: string;
  member: TestMember;
  /** Where its consumers send: an Ears socket for a sampled listener. */
  earPort?: number;
  /** When its join was answered (performance.now()). */
  joinedAt: number;
}

type CpuTime = ReturnType<typeof cpuSeconds>;
const used = (a: CpuTime, b: CpuTime) => b.user + b.system - a.user - a.system;

/** `promise`, or an error naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no end after ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The CPU time the whole machine has been busy, in seconds (all cores), from /proc/stat. */
function machineBusySeconds(): number {
  const [, ...fields] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] as string).trim().split(/\s+/);
  const ticks = fields.map(Number);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return (ticks.reduce((sum, t) => sum + t, 0) - idle) / 100;
}

/** Every message `member` has received: notifications and requests (not what those carried). */
const messagesOf = (member: TestMember) =>
  member.notifications.filter((n) => !n.carried).length + member.consumers.length;
const peersChangedOf = (member: TestMember) =>
  member.notifications.filter((n) => n.method === 'peersChanged').length;

const ssrcOf = (consumer: TestMember['consumers'][number]) =>
  (consumer.rtpParameters as { encodings: Array<{ ssrc: number }> }).encodings[0]?.ssrc;

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x) => b.includes(x));

export class BotRoom {
  /** RSS of the worker and of this process before anyone joined (KB). */
  readonly baseline: { workerKb: number; processKb: number };
  readonly #options: BotRoomOptions;
  readonly #bench: Bench;
  readonly #ears: Ears;
  /** The Ears thread's /proc entry: its CPU is the bench's, not the server's. */
  readonly #earsThread: string;
  readonly #sink: Sink;
  readonly #sinkPort: number;
  /** With SRTP: the bots' certificate (their transports connect as browsers'). */
  readonly #certificate: BotCertificate | null;
  /**
   * With SRTP, the unsampled listeners connect from sockets of their own (a transport's DTLS
   * and its tuple are per socket): ears opened a step at a time and sealed before it is
   * measured, so that nothing reads them then (see Ears.seal).
   */
  readonly #sinkEars: Ears[] = [];
  #openSinkEars: Ears | null = null;
  readonly #sealedPorts: number[] = [];
  readonly #bots: Bot[] = [];
  readonly #voices: PacedVoice[] = [];
  readonly #conversation: Conversation;
  /** Join order indices of the sampled listeners, spread over those who only listen. */
  readonly #sampled: Set<number>;

  static async open(options: BotRoomOptions): Promise<BotRoom> {
    const bench = await startBench({ forwarding: options.forwarding, loudest: options.k });
    const certificate = options.srtp ? await botCertificate() : null;
    const ears = new Ears({ certificate });
    const sink = new Sink();
    return new BotRoom(options, bench, ears, await ears.thread(), sink, await sink.port(), certificate);
  }

  private constructor(
    options: BotRoomOptions,
    bench: Bench,
    ears: Ears,
    earsThread: string,
    sink: Sink,
    sinkPort: number,
    certificate: BotCertificate | null,
  ) {
    this.#options = options;
    this.#bench = bench;
    this.#ears = ears;
    this.#earsThread = earsThread;
    this.#sink = sink;
    this.#sinkPort = sinkPort;
    this.#certificate = certificate;
    this.#conversation = new Conversation(this.#voices, options.seed);
    const { members, talkers, sampled } = options;
    const spacing = (members - talkers) / sampled;
    this.#sampled = new Set(
      Array.from({ length: sampled }, (_, k) => talkers + Math.floor((k + 0.5) * spacing)),
    );
    this.baseline = { workerKb: rssKb(bench.workerPid), processKb: rssKb(process.pid) };
  }

  /**
   * Fills the room at the join rate, `step` members at a time, each step then measured; until
   * `members`, or `stop` says so.
   */
  async fill(
    members: number,
    step: number,
    stop: (step: Step) => boolean = () => false,
  ): Promise<FillResult> {
    const { talkers, joinsPerSecond } = this.#options;
    const steps: Step[] = [];
    const joinMs: number[] = [];
    const signalling: Signalling = { seconds: 0, messages: 0, peersChanged: 0, byMethod: {} };
    let joinSeconds = 0;
    let joined = 0;
    let stoppedBy = `${members} members`;
    while (joined < members) {
      const target = Math.min(members, joined + step);
      const startedAt = performance.now();
      // The early member's counts now, or (when it joins in this step) zero from its join on.
      const early = this.#bots[talkers]?.member;
      const count0 = {
        messages: early ? messagesOf(early) : 0,
        peersChanged: early ? peersChangedOf(early) : 0,
        notifications: early ? early.notifications.length : 0,
        consumers: early ? early.consumers.length : 0,
      };
      const failures: Error[] = [];
      const pending = new Set<Promise<void>>();
      for (let i = joined; i < target; i++) {
        await sleep(startedAt + ((i - joined) * 1000) / joinsPerSecond - performance.now());
        while (pending.size >= MAX_JOINS_IN_FLIGHT) await Promise.race(pending);
        const join: Promise<void> = this.#join(i)
          .then((ms) => void joinMs.push(ms))
          .catch((error: Error) => void failures.push(error))
          .finally(() => pending.delete(join));
        pending.add(join);
        // The talkers are in before anyone else: the talk goes on from the first listener on.
        if (i === talkers - 1) {
          await Promise.all(pending);
          if (this.#options.turns) this.#conversation.play();
          else this.#conversation.set(Array.from({ length: this.#options.k }, (_, k) => k));
        }
      }
      await within(Promise.all(pending), STEP_JOINS_TIMEOUT_MS, `the joins up to ${target}`);
      // None joined: the bench is broken, not the worker slow.
      if (failures.length > 0 && failures.length === target - joined) throw failures[0];
      joinSeconds += (performance.now() - startedAt) / 1000;
      joined = target;
      await sleep(MEMBERSHIP_TAIL_MS);
      const counted = this.#bots[talkers];
      if (counted) {
        const { member } = counted;
        signalling.seconds += (performance.now() - Math.max(startedAt, counted.joinedAt)) / 1000;
        signalling.messages += messagesOf(member) - count0.messages;
        signalling.peersChanged += peersChangedOf(member) - count0.peersChanged;
        for (const { method, carried } of member.notifications.slice(count0.notifications)) {
          const counted = carried ? `${method} in newConsumer` : method;
          signalling.byMethod[counted] = (signalling.byMethod[counted] ?? 0) + 1;
        }
        signalling.byMethod.newConsumer =
          (signalling.byMethod.newConsumer ?? 0) + member.consumers.length - count0.consumers;
      }
      const measured = await this.#measure(joined - failures.length);
      steps.push(measured);
      this.#print(measured);
      // Some joins timed out (a saturated worker answers late): the room stops growing here.
      if (failures.length > 0) {
        stoppedBy = `${failures.length} of the joins up to ${target} failed (${(failures[0] as Error).message})`;
        break;
      }
      if (stop(measured)) {
        stoppedBy = `worker at ${measured.workerCpuPercent}% of a core`;
        break;
      }
    }
    joinMs.sort((a, b) => a - b);
    return {
      steps,
      stoppedBy,
      joinsPerSecond: round(joined / joinSeconds),
      joinRequestsMs: { p50: round(percentile(joinMs, 50)), p95: round(percentile(joinMs, 95)) },
      signalling,
    };
  }

  /**
   * `count` members join the room one at a time: WebSocket connect → first RTP packet, ms,
   * ascending (infinite for one that heard nothing within PROBE_TIMEOUT_MS; after a few such in
   * a row the room is not serving newcomers and the rest are skipped).
   */
  async probes(count: number): Promise<number[]> {
    const room = this.#bench.room(ROOM_ID);
    const members = room.peerCount;
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const peerId = `probe-${i}`;
      const port = await this.#ears.open();
      // The API signs the token before the browser connects: outside the timed part.
      const started = clock();
      const member = await this.#bench.connect(ROOM_ID, peerId);
      try {
        await this.#joinRoom(member, peerId, this.#ears, port);
        const first = await this.#firstArrival(port);
        times.push(first === null ? Number.POSITIVE_INFINITY : first - started);
      } catch (error) {
        // A saturated worker answers too late: this newcomer hears nothing.
        console.log(`${peerId} could not join: ${(error as Error).message}`);
        times.push(Number.POSITIVE_INFINITY);
      }
      member.close();
      await until(() => room.peerCount === members, `${peerId} to leave`);
      const last = times.slice(-PROBE_FAILURES_IN_A_ROW);
      if (last.length === PROBE_FAILURES_IN_A_ROW && last.every((ms) => ms === Number.POSITIVE_INFINITY)) {
        console.log(`${PROBE_FAILURES_IN_A_ROW} probes in a row heard nothing: the rest are skipped`);
        break;
      }
    }
    return times.sort((a, b) => a - b);
  }

  /**
   * `count` times: K talkers talk alone until they are the forwarded K (`policy`, the room's),
   * one stops, and a second later (its observers have said `silence`) one not forwarded starts;
   * each sampled listener is timed from that one's first packet sent to its first packet heard.
   */
  async newSpeakers(count: number, policy: LoudestK): Promise<Switch[]> {
    const { k, talkers, seed } = this.#options;
    this.#conversation.pause();
    const random = seededRandom(seed + 1);
    const listeners = this.#bots.filter((bot) => bot?.earPort !== undefined);
    const switches: Switch[] = [];
    for (let r = 0; r < count; r++) {
      const order = shuffled(
        Array.from({ length: talkers }, (_, i) => i),
        random,
      );
      const chosen = order.slice(0, k);
      this.#conversation.set(chosen);
      // Under overload they may not get there: the switch is measured all the same, and says so.
      const chosenIds = chosen.map((i) => `m${i}`);
      const forwarded = () => policy.selected.slice(0, k);
      const threeForwarded = await until(
        () => sameSet(forwarded(), chosenIds),
        'the chosen to be forwarded',
        FORWARDED_TIMEOUT_MS,
      ).then(
        () => true,
        () => false,
      );
      await sleep(1000);
      const silent = chosen[k - 1] as number;
      this.#voices[silent]?.stop();
      await sleep(1000);
      const next = order.slice(k).find((i) => !policy.selected.includes(`m${i}`)) as number;
      const newSpeaker = `m${next}`;
      const silentWasForwarded = forwarded().includes(`m${silent}`);
      await this.#ears.mark();
      const sentAt = (this.#voices[next] as PacedVoice).start();
      const heardAt = new Map<number, number>();
      const deadline = Date.now() + HEAR_TIMEOUT_MS;
      while (heardAt.size < listeners.length && Date.now() < deadline) {
        await sleep(20);
        const heard = new Map((await this.#ears.heard()).map((h) => [h.port, h.firsts]));
        for (const bot of listeners) {
          const firsts = heard.get(bot.earPort as number);
          // Its consumer of the new speaker may be new: its SSRC is known once the member took it.
          const times = bot.member.consumers
            .filter((consumer) => consumer.peerId === newSpeaker)
            .flatMap((consumer) => firsts?.get(ssrcOf(consumer) as number) ?? []);
          if (times.length > 0) heardAt.set(bot.index, Math.min(...times) - sentAt);
        }
      }
      this.#voices[next]?.stop();
      const heardMs = listeners.map((bot) => {
        const ms = heardAt.get(bot.index);
        return ms === undefined ? null : round(ms);
      });
      // Not heard within the wait counts as never: it can only push the percentiles up.
      const sorted = heardMs.map((ms) => ms ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
      const result: Switch = {
        silent: `m${silent}`,
        newSpeaker,
        threeForwarded,
        silentWasForwarded,
        heardMs,
        p50Ms: round(percentile(sorted, 50)),
        p95Ms: round(percentile(sorted, 95)),
      };
      switches.push(result);
      console.log(
        `switch ${r + 1}: ${result.silent} fell silent${silentWasForwarded ? ' (still forwarded)' : ''}, ${newSpeaker} started: heard by ${heardAt.size}/${listeners.length} sampled listeners, p50 ${result.p50Ms} ms, p95 ${result.p95Ms} ms`,
      );
      const last = switches.slice(-SWITCH_FAILURES_IN_A_ROW);
      if (
        last.length === SWITCH_FAILURES_IN_A_ROW &&
        last.every((s) => s.heardMs.every((ms) => ms === null))
      ) {
        console.log(
          `${SWITCH_FAILURES_IN_A_ROW} new speakers in a row heard by nobody: the rest are skipped`,
        );
        break;
      }
    }
    return switches;
  }

  /** Closes the members, the media server and the threads; the bots are let go. */
  async close(): Promise<void> {
    this.#conversation.pause();
    await this.#bench.close();
    await this.#ears.close();
    await this.#sink.close();
    for (const ears of this.#sinkEars) await ears.close();
    this.#bots.length = 0;
  }

  /** Member `index` joins: a talker also produces (silent until the script gives it a turn). */
  async #join(index: number): Promise<number> {
    const peerId = `m${index}`;
    const started = performance.now();
    const member = await this.#bench.connect(ROOM_ID, peerId);
    const sampled = this.#sampled.has(index);
    const earPort = sampled ? await this.#ears.open() : undefined;
    if (sampled) await this.#joinRoom(member, peerId, this.#ears, earPort as number);
    else if (this.#certificate) {
      this.#openSinkEars ??= this.#newSinkEars();
      const ears = this.#openSinkEars;
      await this.#joinRoom(member, peerId, ears, await ears.open());
    } else await joinRoom(this.#bench, member, ROOM_ID, peerId, this.#sinkPort);
    const joinedAt = performance.now();
    if (index < this.#options.talkers) {
      // Louder the earlier: -20 dBov down to -58 for 20 talkers.
      const level = 20 + 2 * index;
      const ssrc = 1000 + index;
      this.#voices[index] = await speak(this.#bench, member, ROOM_ID, peerId, ssrc, { level, silent: true });
    }
    this.#bots[index] = { index, peerId, member, earPort, joinedAt };
    return joinedAt - started;
  }

  /**
   * `member` joins from socket `port` of `ears`: as a browser (WebRtcTransport, SRTP) with a
   * certificate, through a PlainTransport with plain RTP without.
   */
  async #joinRoom(member: TestMember, peerId: string, ears: Ears, port: number): Promise<void> {
    if (this.#certificate) await joinRoomAsBrowser(member, peerId, ears, port, this.#certificate);
    else await joinRoom(this.#bench, member, ROOM_ID, peerId, port);
  }

  #newSinkEars(): Ears {
    const ears = new Ears({ counting: false, certificate: this.#certificate });
    this.#sinkEars.push(ears);
    return ears;
  }

  /** Packets dropped so far at the sink's sockets (see Sink and Ears.seal). */
  async #sinkDrops(): Promise<number> {
    if (!this.#certificate) return this.#sink.dropped();
    // The step's joins are done: their ears connected, nothing is left for them to read.
    const open = this.#openSinkEars;
    this.#openSinkEars = null;
    if (open) this.#sealedPorts.push(...(await open.seal()));
    return udpDrops(this.#sealedPorts);
  }

  /** The consumers of every member in the room now, as the server's Peer objects hold them. */
  #consumers(): Consumer[] {
    const room = this.#bench.room(ROOM_ID);
    const producerIds = this.#bots
      .slice(0, this.#options.talkers)
      .flatMap((bot) => room.peer(bot.peerId)?.producer?.id ?? []);
    return this.#bots.flatMap((bot) => {
      const peer = room.peer(bot.peerId);
      return peer ? producerIds.flatMap((id) => peer.consumerOf(id) ?? []) : [];
    });
  }

  /**
   * The bots keep what they receive for the early member's count and the sampled listeners'
   * consumers only: the rest would grow this process by every notification of a thousand members.
   */
  #forgetMessages(): void {
    for (const bot of this.#bots) {
      if (!bot || bot.index === this.#options.talkers) continue;
      bot.member.notifications.length = 0;
      if (!this.#sampled.has(bot.index)) bot.member.consumers.length = 0;
    }
  }

  /** Measures the room as it is, nobody joining: see the Step fields. */
  async #measure(members: number): Promise<Step> {
    await sleep(SETTLE_MS);
    this.#forgetMessages();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const { workerPid } = this.#bench;
    // Packets out are counted where they land, at no cost to the worker: the Sink's kernel drops
    // and what the Ears read (asking the worker for thousands of consumers' stats is a load of its own).
    await this.#ears.mark();
    const sink0 = await this.#sinkDrops();
    const cpu0 = {
      worker: cpuSeconds(workerPid),
      process: cpuSeconds(process.pid),
      ears: cpuSeconds(this.#earsThread),
    };
    const machine0 = machineBusySeconds();
    const startedAt = performance.now();
    delay.enable();
    await sleep(MEASURE_MS);
    delay.disable();
    const endedAt = performance.now();
    const seconds = (endedAt - startedAt) / 1000;
    const cpu1 = {
      worker: cpuSeconds(workerPid),
      process: cpuSeconds(process.pid),
      ears: cpuSeconds(this.#earsThread),
    };
    const machineCpu = (machineBusySeconds() - machine0) / seconds;
    const sink1 = await this.#sinkDrops();
    const sampledPorts = new Set(this.#bots.map((bot) => bot?.earPort));
    const heard = (await this.#ears.heard()).filter((h) => sampledPorts.has(h.port));
    const consumers = this.#consumers();
    const workerCpu = used(cpu0.worker, cpu1.worker) / seconds;
    const wholeProcessCpu = used(cpu0.process, cpu1.process) / seconds;
    const processCpu = wholeProcessCpu - used(cpu0.ears, cpu1.ears) / seconds;
    const perListener = heard.map((h) => h.received / seconds);
    const outgoingPerSecond = (sink1 - sink0) / seconds + perListener.reduce((sum, n) => sum + n, 0);
    const due = this.#conversation.meanTalking(startedAt, endedAt, this.#options.cap);
    return {
      members,
      consumers: consumers.length,
      meanTalking: round(this.#conversation.meanTalking(startedAt, endedAt), 2),
      workerCpuPercent: round(workerCpu * 100),
      workerUsPerPacket: round((workerCpu / outgoingPerSecond) * 1e6, 2),
      workerKernelPercent: round(((cpu1.worker.system - cpu0.worker.system) / seconds) * 100),
      processCpuPercent: round(processCpu * 100),
      totalCpuCores: round(workerCpu + processCpu, 2),
      otherCpuPercent: round(Math.max(0, machineCpu - workerCpu - wholeProcessCpu) * 100),
      outgoingPerSecond: Math.round(outgoingPerSecond),
      packetRatio: round(outgoingPerSecond / (this.#options.k * members * PACKETS_PER_SECOND), 3),
      delivery: round(outgoingPerSecond / (members * due * PACKETS_PER_SECOND), 3),
      sampledPerListener: {
        mean: round(perListener.reduce((sum, n) => sum + n, 0) / Math.max(1, perListener.length)),
        min: round(Math.min(...perListener)),
        max: round(Math.max(...perListener)),
      },
      workerRssMb: round(rssKb(workerPid) / 1024),
      processRssMb: round(rssKb(process.pid) / 1024),
      eventLoopDelayP99Ms: round(delay.percentile(99) / 1e6),
    };
  }

  #print(s: Step): void {
    console.log(
      `${this.#options.name} ${s.members} members (${s.consumers} consumers, ${s.meanTalking} talking): worker ${s.workerCpuPercent}% (${s.workerKernelPercent}% kernel), process ${s.processCpuPercent}%, others ${s.otherCpuPercent}%; ${s.outgoingPerSecond} packets/s out (${s.workerUsPerPacket} µs each), ratio ${s.packetRatio}, delivery ${s.delivery}, sampled listener ${s.sampledPerListener.mean}/s; worker ${s.workerRssMb} MB, process ${s.processRssMb} MB; loop p99 ${s.eventLoopDelayP99Ms} ms`,
    );
  }

  /** When the first RTP packet reached Ears socket `port` (`clock()`); null after PROBE_TIMEOUT_MS. */
  async #firstArrival(port: number): Promise<number | null> {
    const deadline = Date.now() + PROBE_TIMEOUT_MS;
    for (;;) {
      const heard = (await this.#ears.heard()).find((h) => h.port === port);
      if (heard && heard.firsts.size > 0) return Math.min(...heard.firsts.values());
      if (Date.now() > deadline) return null;
      await sleep(20);
    }
  }
}
