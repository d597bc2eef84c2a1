/**
 * A real media server for tests (real mediasoup workers, real protoo over WebSocket on loopback)
 * with members that send and receive Opus RTP through PlainTransports from UDP sockets of the test.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Bus, MemoryBus, roomMembersChannel } from '@voice/bus';
import { FORWARDING, MEDIA_SOCKET_PATH, type RoomMembers } from '@voice/protocol';
import { routeUpgrades } from '@voice/signalling';
import { loadMediaConfig } from '../config.ts';
import { MediaServer, type MediaServerOptions } from '../MediaServer.ts';
import type { Room } from '../Room.ts';
import type { Logger, RtpCapabilities } from '../types.ts';
import { signRoomToken, TEST_MEDIA_SECRET } from './roomTokens.ts';
import { opusRtpParameters, RtpSocket } from './rtp.ts';
import { TestMember } from './TestMember.ts';

/** Options of TestMediaServer.start(). */
export interface TestMediaServerOptions {
  numWorkers?: number;
  /** The workers' RTC ports; each test file takes its own range. */
  rtcPorts: { min: number; max: number };
  /** Who consumes whom in a new room; the rooms' LoudestK when left out. */
  forwarding?: MediaServerOptions['forwarding'];
  /** Consumers a room's router may hold before the room goes on on another worker. */
  consumerBudget?: number;
  /**
   * The bus, when the test gives one (a RedisBus, so that several media servers share a Redis,
   * as processes would): left open on close. A MemoryBus of its own otherwise.
   */
  bus?: Bus;
}

/** A member sending Opus from a UDP socket of the test. */
export interface TestSpeaker {
  producerId: string;
  transportId: string;
  /** The PlainTransport's port, where its RTP goes. */
  port: number;
  send(count: number, options?: { intervalMs?: number; level?: (i: number) => number }): Promise<void>;
}

/** A member receiving into a UDP socket of the test. */
export interface TestListener {
  socket: RtpSocket;
  transportId: string;
}

export class TestMediaServer {
  readonly media: MediaServer;
  readonly bus: Bus;
  /** Every RoomMembers message the media server published. */
  readonly members: RoomMembers[];
  /** The media server's error log lines: a refused request must not show up here as a failure. */
  readonly errors: string[];
  readonly #port: number;
  readonly #closers: Array<() => unknown> = [];

  static async start({
    numWorkers = 1,
    rtcPorts,
    forwarding,
    consumerBudget,
    bus: givenBus,
  }: TestMediaServerOptions): Promise<TestMediaServer> {
    const config = loadMediaConfig({
      MEDIASOUP_WORKER_BIN: process.env.MEDIASOUP_WORKER_BIN,
      MEDIA_SRTP_LIB_DIR: process.env.MEDIA_SRTP_LIB_DIR,
      MEDIA_NUM_WORKERS: String(numWorkers),
      RTC_MIN_PORT: String(rtcPorts.min),
      RTC_MAX_PORT: String(rtcPorts.max),
      MEDIA_LISTEN_IP: '127.0.0.1',
      MEDIA_LOG_LEVEL: 'error',
      MEDIA_CONSUMER_BUDGET: consumerBudget === undefined ? undefined : String(consumerBudget),
    });
    const errors: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message) => errors.push(message) };
    const bus = givenBus ?? new MemoryBus({ ...logger, error: () => {} });
    const members: RoomMembers[] = [];
    await bus.subscribe(roomMembersChannel, (message) => members.push(message));
    const media = await MediaServer.create({
      config,
      bus,
      logger,
      url: 'ws://127.0.0.1/rtc',
      secret: TEST_MEDIA_SECRET,
      forwarding,
    });
    const http: Server = createServer((_request, response) => response.end());
    routeUpgrades(http, { [MEDIA_SOCKET_PATH]: media.rtc.endpoint });
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    const server = new TestMediaServer(media, bus, members, errors, (http.address() as AddressInfo).port);
    server.#closers.push(async () => {
      await media.close();
      http.closeAllConnections();
      http.close();
      if (!givenBus) await bus.close();
    });
    return server;
  }

  private constructor(media: MediaServer, bus: Bus, members: RoomMembers[], errors: string[], port: number) {
    this.media = media;
    this.bus = bus;
    this.members = members;
    this.errors = errors;
    this.#port = port;
  }

  /** The `/rtc` URL for `peerId` in `roomId`: with a fresh token, the token given, or none (null). */
  url(roomId: string, peerId: string, token: string | null = signRoomToken(roomId, peerId)): string {
    const query = new URLSearchParams({ roomId, peerId, ...(token === null ? {} : { token }) });
    return `ws://127.0.0.1:${this.#port}${MEDIA_SOCKET_PATH}?${query}`;
  }

  /** Connects `peerId` to `roomId` (a stage with `stage`) with a fresh token, as the API would sign it. */
  async connect(
    roomId: string,
    peerId: string,
    { admin = false, moderator = false, stage = false, loudest = FORWARDING.loudestDefault as number } = {},
  ): Promise<TestMember> {
    const member = await TestMember.connect(
      this.url(
        roomId,
        peerId,
        signRoomToken(roomId, peerId, { permissions: { admin, moderator }, stage, loudest }),
      ),
    );
    this.#closers.push(() => member.close());
    return member;
  }

  /** The open room `roomId`; throws when there is none. */
  room(roomId: string): Room {
    const room = this.media.rooms.get(roomId);
    if (!room) throw new Error(`no room ${roomId}`);
    return room;
  }

  /** A UDP socket closed with the server. */
  async rtpSocket(): Promise<RtpSocket> {
    const socket = await RtpSocket.bind();
    this.#closers.push(() => socket.close());
    return socket;
  }

  /** `member` (`peerId`) produces Opus through a PlainTransport fed from a UDP socket of the test. */
  async speaker(roomId: string, member: TestMember, peerId: string, ssrc: number): Promise<TestSpeaker> {
    const transport = await this.room(roomId).createPlainTransport(peerId, {
      producing: true,
      consuming: false,
    });
    const { id } = await member.request('produce', {
      transportId: transport.id,
      kind: 'audio',
      rtpParameters: opusRtpParameters(ssrc),
    });
    const socket = await this.rtpSocket();
    return {
      producerId: id,
      transportId: transport.id,
      port: transport.tuple.localPort,
      send: (count, options) => socket.stream(transport.tuple.localPort, ssrc, count, options),
    };
  }

  /** `peerId` receives through a PlainTransport that sends to a UDP socket of the test. */
  async listener(roomId: string, peerId: string): Promise<TestListener> {
    const transport = await this.room(roomId).createPlainTransport(peerId, {
      producing: false,
      consuming: true,
    });
    const socket = await this.rtpSocket();
    await transport.connect({ ip: '127.0.0.1', port: socket.port });
    return { socket, transportId: transport.id };
  }

  /** Closes the members, sockets and the server, last made first. */
  async close(): Promise<void> {
    for (const close of this.#closers.splice(0).reverse()) await close();
  }
}

/** Joins with the router's own capabilities, which can consume anything the router carries. */
export async function join(member: TestMember) {
  const rtpCapabilities = (await member.request('getRouterRtpCapabilities', {})) as RtpCapabilities;
  return member.request('join', { displayName: 'ignored', device: { name: 'test' }, rtpCapabilities });
}

/** Resolves once `check` holds, polling; rejects after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
