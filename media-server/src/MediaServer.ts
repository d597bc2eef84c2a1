/**
 * One media server: its mediasoup workers, its rooms, its signalling endpoint (`/rtc`) and its
 * announcements on the bus. The API starts one in its own process tree (embedded), or
 * `media-server/src/main.ts` runs one as a process of its own (external); both the same way.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '@voice/bus';
import { MEDIA_DRAIN, type MediaServerLoad } from '@voice/protocol';
import { Announcer } from './Announcer.ts';
import type { MediaConfig } from './config.ts';
import { RoomRegistry, type RoomRegistryOptions } from './RoomRegistry.ts';
import { type RtcAuthenticator, RtcServer } from './RtcServer.ts';
import { roomTokenAuthenticator, roomTokenVerifier } from './roomToken.ts';
import type { SpentRoomTokens } from './spentRoomTokens.ts';
import type { Logger } from './types.ts';
import { WorkerPool } from './WorkerPool.ts';

/** Options of MediaServer.create(). */
export interface MediaServerOptions {
  config: MediaConfig;
  bus: Bus;
  logger: Logger;
  /** Where browsers reach `/rtc` (ws: or wss:), as announced to the API. */
  url: string;
  /**
   * The key the API signs room tokens with (MEDIA_SECRET, or the embedded API's derived key):
   * a connection is admitted with a valid, unused token for its `roomId` and `peerId`.
   */
  secret?: Buffer | string;
  /** Admits connections instead of `secret` (tests); without either, every connection is refused. */
  authenticate?: RtcAuthenticator;
  /** Where spent room tokens are recorded to outlive a restart (Redis); this process's memory alone without it. */
  spentTokens?: SpentRoomTokens;
  /** Who consumes whom in a new room; ForwardAll when left out. */
  forwarding?: RoomRegistryOptions['forwarding'];
}

/**
 * The share of its workers' cores past which a media server announces itself full: the API then
 * places newcomers, to its rooms too, on another media server when there is one.
 */
const MEDIA_FULL_CPU = 0.85;

export class MediaServer {
  /** Random per start: a restarted media server is announced as a new one. */
  readonly id: string;
  readonly url: string;
  readonly pool: WorkerPool;
  readonly rooms: RoomRegistry;
  readonly rtc: RtcServer;
  readonly #announcer: Announcer;
  readonly #config: MediaConfig;
  readonly #offRecovered: () => void;
  #closed = false;

  /** Starts the workers, then the rooms, the endpoint and the announcements; nothing is left running if it fails. */
  static async create(options: MediaServerOptions): Promise<MediaServer> {
    const pool = await WorkerPool.create(options.config, { logger: options.logger });
    const id = randomUUID();
    let rooms: RoomRegistry;
    try {
      rooms = await RoomRegistry.create({
        serverId: id,
        pool,
        config: options.config,
        bus: options.bus,
        logger: options.logger,
        forwarding: options.forwarding,
        consumerBudget: options.config.consumerBudget,
      });
    } catch (error) {
      pool.close();
      throw error;
    }
    return new MediaServer(options, id, pool, rooms);
  }

  private constructor(options: MediaServerOptions, id: string, pool: WorkerPool, rooms: RoomRegistry) {
    const { bus, logger, url, secret, spentTokens } = options;
    this.id = id;
    this.#config = options.config;
    this.url = url;
    this.pool = pool;
    this.rooms = rooms;
    const authenticate =
      options.authenticate ??
      (secret === undefined
        ? undefined
        : roomTokenAuthenticator(
            roomTokenVerifier(secret),
            spentTokens ? { spent: spentTokens, logger } : undefined,
          ));
    const admit = rooms.admit.bind(rooms);
    this.rtc = new RtcServer(authenticate ? { logger, authenticate, admit } : { logger, admit });
    this.#announcer = new Announcer({
      id: this.id,
      url,
      bus,
      logger,
      load: () => this.load,
      rooms: () => rooms.announced(),
      draining: () => rooms.draining,
    });
    // The API processes missed what was said meanwhile (and a restarted Redis forgot it): the
    // announcement now, not in up to 2 s, lets them see what they lack and ask for it.
    this.#offRecovered = bus.onRecovered(() => void this.#announcer.announce());
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** What the announcements carry: the API places rooms by routers per worker for now. */
  get load(): MediaServerLoad {
    const { workers, routers, perWorker } = this.pool.load;
    const cpu = Math.round(perWorker.reduce((sum, worker) => sum + worker.cpu, 0) * 1000) / 1000;
    const { members, consumers } = this.rooms.load;
    const { consumerBudget, maxMembers } = this.#config;
    const full =
      members >= (maxMembers ?? Number.POSITIVE_INFINITY) ||
      consumers >= consumerBudget * Math.max(1, workers) ||
      cpu >= MEDIA_FULL_CPU * Math.max(1, workers) ||
      this.rooms.seatsLeft() === 0;
    return { workers, routers, members, consumers, cpu, ...(full ? { full: true as const } : {}) };
  }

  get draining(): boolean {
    return this.rooms.draining;
  }

  /**
   * Empties this media server before it stops, ending nobody's room (issue 22, item 2): says
   * on the bus that it is draining, so the API places no room and no member here any more,
   * then asks every member to join again (the API places their room on another media server)
   * and resolves once they all left, or after `deadlineMs` (those still here are disconnected
   * with the same notice). close() afterwards.
   */
  async drain(deadlineMs: number = MEDIA_DRAIN.deadlineMs): Promise<void> {
    if (this.#closed || this.rooms.draining) return;
    this.rooms.refuseNewcomers();
    // Before anyone asks the API again: it must already know not to send them back here.
    await this.#announcer.announce();
    await this.rooms.drain(deadlineMs);
  }

  /** Says goodbye on the bus, closes every room, connection and worker. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#offRecovered();
    // Rooms first, so their members hear `reconnect` before the connections go.
    await this.rooms.close();
    this.rtc.close();
    this.pool.close();
    await this.#announcer.close();
  }
}
