/**
 * The registry of one media server's rooms, by id: a room is made when its first member
 * connects, gone when the last one leaves. Admits each member and wires their requests to
 * roomRequests.ts. Tells the API processes who is in each room (RoomMembers) and obeys their
 * RoomCommands, both over the bus, and says who an admin or moderator removed (RoomKick). What the bus lost (a Redis that restarted empty, messages
 * dropped while it was away) the API notices against the announcements and asks for again
 * (`resync`).
 */
import { type Bus, roomCommandsChannel, roomKicksChannel, roomMembersChannel } from '@voice/bus';
import { type AnnouncedRoom, type RoomCommand, RTC_LIMITS } from '@voice/protocol';
import type protoo from 'protoo-server';
import type { MediaConfig } from './config.ts';
import { draining, InvalidStateError, noPortsLeft } from './errors.ts';
import type { ForwardingPolicy } from './Forwarding.ts';
import type { RtcMember } from './Peer.ts';
import { Room } from './Room.ts';
import { RoomLinks } from './RoomLinks.ts';
import { dispatchRequest } from './roomRequests.ts';
import type { Logger, Router } from './types.ts';
import type { WorkerPool } from './WorkerPool.ts';

/** Options of RoomRegistry.create(). */
export interface RoomRegistryOptions {
  /** The media server's id, as in its announcements. */
  serverId: string;
  pool: WorkerPool;
  config: Pick<MediaConfig, 'listenIp' | 'announcedIp'>;
  bus: Bus;
  logger: Logger;
  /** Consumers a room's router may hold before the room goes on on another worker (MEDIA_CONSUMER_BUDGET). */
  consumerBudget?: number;
  /** Who consumes whom in a new room; LoudestK with the room's K when left out. */
  forwarding?: (roomId: string) => ForwardingPolicy;
}

// Every API process asks when it sees a difference; their requests within this wait are one republish.
const RESYNC_GATHER_MS = 100;
// How often a drain looks whether the members have all gone.
const DRAIN_POLL_MS = 50;

export class RoomRegistry {
  readonly #options: RoomRegistryOptions;
  readonly #rooms = new Map<string, Room>();
  /** Rooms being made: a second member arriving meanwhile waits for the same one. */
  readonly #creating = new Map<string, Promise<Room>>();
  /** Rooms whose members are to be published again, gathered for RESYNC_GATHER_MS. */
  readonly #resyncs = new Set<string>();
  #resyncTimer: NodeJS.Timeout | null = null;
  #unsubscribe: (() => Promise<void>) | undefined;
  /** The links of rooms here to their parts on other media servers. */
  #links: RoomLinks | undefined;
  #closed = false;
  /** From drain() on: nobody new is admitted, and the members are asked to move. */
  #draining = false;

  static async create(options: RoomRegistryOptions): Promise<RoomRegistry> {
    const rooms = new RoomRegistry(options);
    rooms.#unsubscribe = await options.bus.subscribe(roomCommandsChannel, (command) => rooms.#obey(command));
    rooms.#links = await RoomLinks.create({
      serverId: options.serverId,
      bus: options.bus,
      config: options.config,
      logger: options.logger,
      room: (roomId) => rooms.#rooms.get(roomId),
      rooms: () => rooms.#rooms.values(),
    });
    return rooms;
  }

  private constructor(options: RoomRegistryOptions) {
    this.#options = options;
  }

  /** The media servers holding the other parts of `roomId` that its part here is linked to. */
  linkedServers(roomId: string): string[] {
    return this.#links?.linkedServers(roomId) ?? [];
  }

  /** The open room `roomId`, if any (benchmarks and tests reach its PlainTransports through it). */
  get(roomId: string): Room | undefined {
    return this.#rooms.get(roomId);
  }

  get size(): number {
    return this.#rooms.size;
  }

  /** The open rooms with their joined members' count, for the announcements. */
  announced(): AnnouncedRoom[] {
    // The ports left are counted once for every room, not once per room.
    const free = this.#portsLeft();
    const rooms: AnnouncedRoom[] = [];
    for (const room of this.#rooms.values()) {
      if (room.closed) continue;
      const seats = Math.max(0, Math.floor(free / room.portsPerNewcomer));
      rooms.push({ id: room.id, peers: room.memberIds().length, seats });
    }
    return rooms;
  }

  /** Joined members and the consumers they hold, across the open rooms, for the announced load. */
  get load(): { members: number; consumers: number } {
    let members = 0;
    let consumers = 0;
    for (const room of this.#rooms.values()) {
      if (room.closed) continue;
      members += room.joinedPeers().length;
      consumers += room.consumerCount;
    }
    return { members, consumers };
  }

  /**
   * How many ports each worker has left: its RTC range less the ports of the members placed on
   * its routers, in every room (Room.portsTaken).
   */
  #freePorts(): Array<{ free: number; routers: ReadonlySet<Router> }> {
    const placed = new Map<Router, number>();
    for (const room of this.#rooms.values()) {
      if (room.closed) continue;
      for (const [router, ports] of room.portsTaken().placed) placed.set(router, ports);
    }
    return this.#options.pool.seats.map(({ ports, routers }) => {
      let taken = 0;
      for (const router of routers) taken += placed.get(router) ?? 0;
      return { free: Math.max(0, ports - taken), routers };
    });
  }

  /** Members and consumers on `router`, whichever room it is a part of. */
  #weightOf(router: Router): number {
    for (const room of this.#rooms.values()) {
      const weight = room.weightByRouter().get(router);
      if (weight !== undefined) return weight;
    }
    return 0;
  }

  /** How many more members the worker holding `router` has ports for. */
  seatsOn(router: Router): number {
    const free = this.#freePorts().find(({ routers }) => routers.has(router))?.free ?? 0;
    return Math.floor(free / RTC_LIMITS.portsPerMember);
  }

  /**
   * How many more members `room` can take: the ports left on every worker (a room that fills its
   * worker goes on on another one), less those of members connected and not placed yet, for
   * newcomers of two ports each, or one in a stage's audience.
   */
  seatsFor(room: Room): number {
    return Math.max(0, Math.floor(this.#portsLeft() / room.portsPerNewcomer));
  }

  /** How many more members (of two ports each) this media server's workers have ports for. */
  seatsLeft(): number {
    return Math.max(0, Math.floor(this.#portsLeft() / RTC_LIMITS.portsPerMember));
  }

  /** The ports left on every worker, less those of members connected and not placed yet. */
  #portsLeft(): number {
    let free = 0;
    for (const worker of this.#freePorts()) free += worker.free;
    for (const other of this.#rooms.values()) if (!other.closed) free -= other.portsTaken().unplaced;
    return free;
  }

  /**
   * Seats an authenticated member in their room, making the room first if needed (RtcAdmission).
   * With no ports left on any worker nobody new gets in (409): the API, told so in the
   * announcements, says "Room is full" before anyone gets that far.
   */
  async admit(member: RtcMember, accept: () => protoo.Peer | null): Promise<void> {
    // Draining, nobody new gets in (the API places rooms elsewhere; a page sent here anyway asks again).
    if (this.#draining && !this.#closed) throw draining();
    const room = await this.#open(member.roomId, member.loudest);
    // A token signed after the room's settings changed carries its new K.
    room.setLoudest(member.loudest);
    room.setStage(member.stage);
    if (this.#closed) {
      void room.close();
      throw new InvalidStateError('the media server is closing');
    }
    if (this.#draining) {
      room.closeIfEmpty();
      throw draining();
    }
    // Someone coming back replaces their own connection, and its ports.
    if (!room.peer(member.peerId) && this.seatsFor(room) === 0) {
      room.closeIfEmpty();
      throw noPortsLeft();
    }
    const connection = accept();
    if (!connection) {
      room.closeIfEmpty();
      return;
    }
    const peer = room.addPeer(member, connection);
    connection.on('request', (request, accept, reject) => {
      void dispatchRequest(room, peer, request, accept, reject, this.#options.logger);
    });
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** The first step of a drain: nobody new gets in from now on. */
  refuseNewcomers(): void {
    this.#draining = true;
  }

  /**
   * Empties this media server without ending any room: nobody new gets in, every member is asked
   * to join again (`reconnect`: the page asks the API, which places the room on another media
   * server), and resolves once they all left or `deadlineMs` passed; whoever is still here then
   * is disconnected with the same notice. The caller closes the registry afterwards.
   */
  async drain(deadlineMs: number): Promise<void> {
    if (this.#closed) return;
    this.#draining = true;
    const rooms = [...this.#rooms.values()].filter((room) => !room.closed);
    this.#options.logger.info(
      `media server: draining: asking the members of ${rooms.length} room(s) to move`,
    );
    await Promise.all(rooms.map((room) => room.askToMove()));
    const until = Date.now() + deadlineMs;
    while (Date.now() < until && [...this.#rooms.values()].some((room) => !room.closed)) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    }
    const left = [...this.#rooms.values()].filter((room) => !room.closed);
    if (left.length > 0) {
      this.#options.logger.warn(
        `media server: draining: ${left.length} room(s) still had members; disconnected`,
      );
    }
    await Promise.all(left.map((room) => room.close('reconnect')));
  }

  /**
   * Closes every room and stops listening to commands. Idempotent. The members get `reconnect`,
   * not `roomClosed`: this media server stops, their rooms do not (after a drain nobody is left;
   * without one, as when the API with its embedded media server restarts, the pages try again
   * until the room has a place).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#resyncTimer) clearTimeout(this.#resyncTimer);
    this.#resyncs.clear();
    await this.#unsubscribe?.();
    await Promise.all([...this.#rooms.values()].map((room) => room.close('reconnect')));
    await this.#links?.close();
  }

  /** The open room `roomId`, made on the least-loaded worker when there is none. */
  async #open(roomId: string, loudest: number): Promise<Room> {
    for (;;) {
      const room = this.#rooms.get(roomId) ?? (await this.#create(roomId, loudest));
      // A room can close between being found and being used (emptied, or its worker died).
      if (!room.closed) return room;
    }
  }

  #create(roomId: string, loudest: number): Promise<Room> {
    const pending = this.#creating.get(roomId);
    if (pending) return pending;
    const creating = Room.create({
      id: roomId,
      loudest,
      consumerBudget: this.#options.consumerBudget,
      seatsOn: (router) => this.seatsOn(router),
      weightOf: (router) => this.#weightOf(router),
      pool: this.#options.pool,
      config: this.#options.config,
      logger: this.#options.logger,
      forwarding: this.#options.forwarding?.(roomId),
      links: this.#links?.hooksFor(roomId),
      onMembers: (peers) => this.#publish(roomId, peers),
      onKicked: (peerId, by) => {
        this.#options.bus.publish(roomKicksChannel, { roomId, peerId, by }).catch((error: Error) => {
          this.#options.logger.warn(`room ${roomId}: could not publish a removal: ${error.message}`);
        });
      },
      onClose: () => {
        this.#links?.closed(roomId);
        if (this.#rooms.get(roomId)?.closed) this.#rooms.delete(roomId);
      },
    })
      .then((room) => {
        this.#rooms.set(roomId, room);
        this.#links?.opened(room);
        return room;
      })
      .finally(() => this.#creating.delete(roomId));
    this.#creating.set(roomId, creating);
    return creating;
  }

  #obey(command: RoomCommand): void {
    if (command.type === 'resync') {
      if (command.serverId === this.#options.serverId) this.#resync(command.roomIds);
      return;
    }
    if (command.type === 'inCall') {
      // One voice at a time: whichever room the person is in here, they leave it.
      for (const room of this.#rooms.values()) void room.kick(command.peerId, 'inCall');
      return;
    }
    const room = this.#rooms.get(command.roomId);
    if (!room) return;
    if (command.type === 'close') void room.close('roomClosed');
    else if (command.type === 'moderator') room.setModerator(command.peerId, command.moderator);
    else void room.kick(command.peerId);
  }

  #resync(roomIds: readonly string[]): void {
    for (const roomId of roomIds) this.#resyncs.add(roomId);
    if (this.#resyncTimer || this.#closed) return;
    this.#resyncTimer = setTimeout(() => {
      this.#resyncTimer = null;
      const roomIds = [...this.#resyncs];
      this.#resyncs.clear();
      // A room gone meanwhile is said to be empty, which forgets it only if it is still ours.
      for (const roomId of roomIds) {
        const room = this.#rooms.get(roomId);
        this.#publish(roomId, room && !room.closed ? room.memberIds() : []);
      }
    }, RESYNC_GATHER_MS);
    this.#resyncTimer.unref();
  }

  #publish(roomId: string, peers: string[]): void {
    const message = { serverId: this.#options.serverId, roomId, peers };
    this.#options.bus.publish(roomMembersChannel, message).catch((error: Error) => {
      this.#options.logger.warn(`room ${roomId}: could not publish its members: ${error.message}`);
    });
  }
}
