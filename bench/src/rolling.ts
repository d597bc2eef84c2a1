/**
 * npm run bench:rolling — a media server drained under a room (issue 22, benchmark): how long
 * its members go without audio while they move to another media server.
 *
 * Two media servers in this process, one mediasoup worker each, on RTC ports of their own and
 * one bus: a room across both (RoomLinks pipes the voices between its two parts). BENCH_MEMBERS
 * (200) bots join the room at BENCH_JOIN_RATE (20) a second, every other one on each server, each
 * receiving through a PlainTransport into a socket of the Ears thread (arrivals timed there);
 * the first BENCH_TALKERS (3) talk throughout at different levels (two on the first server, one
 * on the second), so with K = 3 every listener receives every other talker. Then the first
 * server drains (MediaServer.drain, as on SIGTERM). Each of its bots, told `reconnect`, does
 * what a page does once the API has given it the room's new place (the second server: the API's
 * own part, one HTTP join, is bench:api's and not counted here): it closes its old connection,
 * connects to the second server with a fresh room token, makes a new receiving transport to the
 * same socket, and a talker produces its voice again. The bots on the second server stay, and
 * hear the moved talkers again on new consumers.
 *
 * Per member: audio back, from the drain's start to the first packet of a new consumer; for the
 * members who moved, the gap from the last packet of their old consumers to that first new one; the packets
 * one voice lost in the gap (one every 20 ms). p50, p95, max; members left out (no new audio
 * within 10 s).
 * Goal: audio back p95 ≤ 3 s, nobody left out. Writes bench-results/rolling.json.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryBus } from '@voice/bus';
import { LoudestK } from '@voice/media-server';
import type { TestMember } from '@voice/media-server/testing';
import { report } from './harness.ts';
import {
  type Bench,
  clock,
  Ears,
  joinRoom,
  type PacedVoice,
  percentile,
  round,
  speak,
  startBench,
} from './rtpLoad.ts';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 200);
const TALKERS = Number(process.env.BENCH_TALKERS ?? 3);
const JOIN_RATE = Number(process.env.BENCH_JOIN_RATE ?? 20);
const K = 3;
const ROOM_ID = 'rolling';
/** A member with no new audio this long after the drain began is left out. */
const LEFT_OUT_MS = 10_000;
/** After the room is full: the talkers' voices are forwarded to everyone. */
const SETTLE_MS = 3000;
const GOALS = { audioBackP95Ms: 3000, leftOut: 0 };
const PACKET_MS = 20;

interface Bot {
  index: number;
  peerId: string;
  earPort: number;
  member: TestMember;
  voice: PacedVoice | null;
  /** When it was asked to move, and when it was connected again (clock()). */
  askedAt: number;
  rejoinedAt: number;
}

const servers: Bench[] = [];
const ears = new Ears();

async function enter(bench: Bench, bot: Pick<Bot, 'index' | 'peerId' | 'earPort'>) {
  const member = await bench.connect(ROOM_ID, bot.peerId);
  await joinRoom(bench, member, ROOM_ID, bot.peerId, bot.earPort);
  const voice =
    bot.index < TALKERS
      ? await speak(bench, member, ROOM_ID, bot.peerId, 1000 + bot.index, { level: 20 + 6 * bot.index })
      : null;
  return { member, voice };
}

const bus = new MemoryBus({ debug() {}, info() {}, warn() {}, error() {} });
try {
  const options = { forwarding: () => new LoudestK({ k: K }), loudest: K, bus };
  const draining = await startBench({ ...options, rtcPorts: { min: 40_000, max: 44_999 } });
  servers.push(draining);
  const next = await startBench({ ...options, rtcPorts: { min: 45_000, max: 49_999 } });
  servers.push(next);

  console.log(`${MEMBERS} members joining at ${JOIN_RATE}/s, ${TALKERS} talking…`);
  const bots: Bot[] = [];
  const joins: Promise<void>[] = [];
  for (let index = 0; index < MEMBERS; index++) {
    const earPort = await ears.open();
    const peerId = `m${index}`;
    joins.push(
      enter(index % 2 === 0 ? draining : next, { index, peerId, earPort }).then(({ member, voice }) => {
        bots[index] = { index, peerId, earPort, member, voice, askedAt: Number.NaN, rejoinedAt: Number.NaN };
      }),
    );
    await sleep(1000 / JOIN_RATE);
  }
  await Promise.all(joins);
  await sleep(SETTLE_MS);
  const before = new Map((await ears.heard()).map((heard) => [heard.port, new Set(heard.firsts.keys())]));
  const hearing = bots.filter((bot) => (before.get(bot.earPort)?.size ?? 0) > 0).length;
  const deaf = bots.filter((bot) => (before.get(bot.earPort)?.size ?? 0) === 0).map((bot) => bot.peerId);
  console.log(
    `${hearing} of ${MEMBERS} members hear the room${deaf.length > 0 ? ` (not: ${deaf.join(', ')})` : ''}; draining the first media server…`,
  );

  const moves: Promise<void>[] = [];
  for (const bot of bots) {
    bot.member.peer.on('notification', ({ method }: { method: string }) => {
      if (method !== 'reconnect' || !Number.isNaN(bot.askedAt)) return;
      bot.askedAt = clock();
      bot.voice?.stop();
      bot.member.close();
      moves.push(
        enter(next, bot).then(({ member, voice }) => {
          Object.assign(bot, { member, voice, rejoinedAt: clock() });
        }),
      );
    });
  }
  const drainStarted = clock();
  await draining.media.drain(30_000);
  const drainMs = clock() - drainStarted;
  await Promise.allSettled(moves);
  const isNew = (port: number, ssrc: number) => !before.get(port)?.has(ssrc);
  const newFirst = (firsts: Map<number, number>, port: number) =>
    Math.min(...[...firsts].filter(([ssrc]) => isNew(port, ssrc)).map(([, at]) => at));
  // Until every member hears the room again, or LEFT_OUT_MS.
  let heard = new Map((await ears.heard()).map((h) => [h.port, h]));
  const hearsAgain = (bot: Bot) => {
    const h = heard.get(bot.earPort);
    return h !== undefined && Number.isFinite(newFirst(h.firsts, bot.earPort));
  };
  while (clock() - drainStarted < LEFT_OUT_MS && !bots.every(hearsAgain)) {
    await sleep(250);
    heard = new Map((await ears.heard()).map((h) => [h.port, h]));
  }

  const back: number[] = [];
  const gaps: number[] = [];
  let leftOut = 0;
  for (const bot of bots) {
    const h = heard.get(bot.earPort);
    const first = h ? newFirst(h.firsts, bot.earPort) : Number.POSITIVE_INFINITY;
    if (!Number.isFinite(first) || first - drainStarted > LEFT_OUT_MS) {
      leftOut++;
      continue;
    }
    back.push(first - drainStarted);
    // The gap of those who moved: every old consumer of theirs stopped (the others still hear
    // the talker who stayed on the second server throughout).
    if (Number.isNaN(bot.askedAt)) continue;
    const lastOld = Math.max(
      ...[...(h?.lasts ?? new Map<number, number>())]
        .filter(([ssrc]) => !isNew(bot.earPort, ssrc))
        .map(([, at]) => at),
    );
    if (Number.isFinite(lastOld)) gaps.push(Math.max(0, first - lastOld));
  }
  back.sort((a, b) => a - b);
  gaps.sort((a, b) => a - b);
  const stats = (values: number[]) => ({
    p50: round(percentile(values, 50)),
    p95: round(percentile(values, 95)),
    max: round(values.at(-1) ?? Number.NaN),
  });
  const asked = bots.filter((bot) => !Number.isNaN(bot.askedAt)).length;
  const rejoin = bots
    .filter((bot) => !Number.isNaN(bot.rejoinedAt))
    .map((bot) => bot.rejoinedAt - bot.askedAt);
  rejoin.sort((a, b) => a - b);
  report('rolling', {
    goals: GOALS,
    members: MEMBERS,
    talkers: TALKERS,
    k: K,
    joinsPerSecond: JOIN_RATE,
    hearingBeforeDrain: hearing,
    askedToMove: asked,
    drainMs: round(drainMs),
    rejoinMs: stats(rejoin),
    audioBackMs: stats(back),
    gapMs: stats(gaps),
    packetsLostPerVoice: {
      p50: Math.round(percentile(gaps, 50) / PACKET_MS),
      p95: Math.round(percentile(gaps, 95) / PACKET_MS),
      max: Math.round((gaps.at(-1) ?? Number.NaN) / PACKET_MS),
    },
    leftOut,
    met: { audioBackP95: percentile(back, 95) <= GOALS.audioBackP95Ms, leftOut: leftOut === 0 },
  });
} finally {
  for (const server of servers) await server.close();
  await ears.close();
  await bus.close();
}
