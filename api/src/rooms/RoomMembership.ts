/**
 * Who is in each room now: media servers publish it on the bus after every join and leave
 * (ROOM_MEMBERS_CHANNEL), every API process stores it, and rooms read it for their member
 * counts, participants and the capacity check. A room on a media server that stopped
 * announcing counts as empty: its members are gone with it.
 *
 * The one process whose store saw a change tells its listeners (the live room list and
 * friends' "in room X"), so a change is announced once however many processes there are.
 *
 * The store can lose what it was told: Redis restarts empty, or drops the messages sent while
 * it was away. Each media server's announcement lists the rooms it holds with their member
 * counts; every process compares it with the store and asks the server to say the members of
 * the rooms that differ again (`resync`), so the store heals within an announcement or two.
 * Meanwhile the announcements stand in: a room stays on the server that announces it
 * (RoomPlacements), and for a while after an outage of the bus (`settling`) a room's count is
 * at least what its server announced.
 */
import {
  type Bus,
  mediaAnnounceChannel,
  RECONNECT_MAX_DELAY_MS,
  RedisUnavailableError,
  roomCommandsChannel,
  roomMembersChannel,
} from '@voice/bus';
import { MEDIA_ANNOUNCE, type MediaServerAnnouncement, type RoomMembers } from '@voice/protocol';
import type { Logger } from '../logger.ts';
import type { KnownMediaServer, MediaServers } from '../mediaServers/MediaServers.ts';
import type { MemberChange, MemberStore } from './MemberStore.ts';
import type { RoomHosts } from './RoomPlacements.ts';

/** Told once per change of who is in `roomId`. */
export type MemberListener = (roomId: string, change: MemberChange) => Promise<void>;

/** Told, after an outage of the bus, of the rooms a media server holds (what it missed may concern them). */
export type HeldRoomsListener = (serverId: string, roomIds: string[]) => Promise<void>;

/**
 * After the bus is back: every media server has reconnected (RECONNECT_MAX_DELAY_MS) and
 * announced itself (an interval), with a second to spare for the resync it causes.
 */
export const SETTLE_MS = RECONNECT_MAX_DELAY_MS + MEDIA_ANNOUNCE.intervalMs + 1000;

export class RoomMembership implements RoomHosts {
  readonly #store: MemberStore;
  readonly #servers: MediaServers;
  readonly #bus: Bus;
  readonly #logger: Logger;
  readonly #listeners: MemberListener[] = [];
  readonly #heldListeners: HeldRoomsListener[] = [];
  /** The servers heard from since the bus came back, while it settles. */
  readonly #heardSinceOutage = new Set<string>();
  /** Each media server's rooms, as it last announced them: room id → joined members. */
  readonly #announced = new Map<string, Map<string, number>>();
  /**
   * The most members each room's worker has ports for, from its server's last announcement
   * (its joined members and the seats its ports have left), by room id.
   */
  readonly #portCapacity = new Map<string, Map<string, number>>();
  readonly #unsubscribe: Array<() => Promise<void>> = [];
  #offRecovered: () => void = () => {};
  /** Date.now() until which the bus counts as settling after an outage. */
  #settlesAt = 0;
  #closed = false;

  static async create(
    bus: Bus,
    store: MemberStore,
    servers: MediaServers,
    logger: Logger,
  ): Promise<RoomMembership> {
    const membership = new RoomMembership(bus, store, servers, logger);
    membership.#unsubscribe.push(
      await bus.subscribe(roomMembersChannel, (members) =>
        membership
          .#receive(members)
          .catch((error: unknown) => logger.warn('room members not stored', { error })),
      ),
      await bus.subscribe(mediaAnnounceChannel, (announcement) => membership.#heard(announcement)),
    );
    membership.#offRecovered = bus.onRecovered(() => {
      membership.#settlesAt = Date.now() + SETTLE_MS;
      membership.#heardSinceOutage.clear();
    });
    return membership;
  }

  private constructor(bus: Bus, store: MemberStore, servers: MediaServers, logger: Logger) {
    this.#bus = bus;
    this.#store = store;
    this.#servers = servers;
    this.#logger = logger;
  }

  /** Has `listener` told of every change of members this process stores first. */
  onChange(listener: MemberListener): void {
    this.#listeners.push(listener);
  }

  /**
   * Has `listener` told of the rooms each media server holds, once per server after every outage
   * of the bus (while it settles): a room deleted meanwhile was not closed on its server.
   */
  onHeldAfterOutage(listener: HeldRoomsListener): void {
    this.#heldListeners.push(listener);
  }

  /** True for SETTLE_MS after the bus came back from an outage: the store may lack what it lost. */
  get settling(): boolean {
    return Date.now() < this.#settlesAt;
  }

  /**
   * The live media server that announces holding `roomId` (the fullest, should two), or null.
   * A draining one does not count: its members are moving to the room's next place.
   */
  hostOf(roomId: string): KnownMediaServer | null {
    let best: { server: KnownMediaServer; peers: number } | null = null;
    for (const [serverId, rooms] of this.#announced) {
      const peers = rooms.get(roomId);
      if (peers === undefined) continue;
      const server = this.#servers.get(serverId);
      if (server && !server.draining && (!best || peers > best.peers)) best = { server, peers };
    }
    return best?.server ?? null;
  }

  /** The user ids in each of `roomIds` (rooms nobody is in are left out). */
  async peersOf(roomIds: readonly string[]): Promise<Map<string, string[]>> {
    const stored = await this.#store.getMany(roomIds);
    const peers = new Map<string, string[]>();
    for (const [roomId, members] of stored) {
      if (this.#servers.get(members.serverId)) peers.set(roomId, members.peers);
    }
    return peers;
  }

  /** Who is in `roomId` now. */
  async peersIn(roomId: string): Promise<string[]> {
    return (await this.peersOf([roomId])).get(roomId) ?? [];
  }

  /**
   * Holds one of `capacity` seats of `roomId` for `userId` until `untilMs` (their room token's
   * expiry), counting the members, the seats held for others on their way in and, while the bus
   * settles, what the room's server announced. False: the room is full. One step in the store,
   * so two processes never give the same last seat.
   */
  reserveSeat(roomId: string, userId: string, capacity: number, untilMs: number): Promise<boolean> {
    return this.#store.reserveSeat({
      roomId,
      userId,
      // A room's worker must have ports for them too.
      capacity: Math.min(capacity, this.#portsHold(roomId) ?? capacity),
      floor: this.#announcedCount(roomId),
      liveServers: this.#servers.list().map((server) => server.id),
      nowMs: Date.now(),
      untilMs,
    });
  }

  /** Lets a held seat go (the join it was held for failed). */
  releaseSeat(roomId: string, userId: string): Promise<void> {
    return this.#store.releaseSeat(roomId, userId);
  }

  /**
   * The most members the ports of `roomId`'s media servers hold, from their last announcements:
   * the room's members (each part says all of them) and the seats every part's ports have left.
   * None (no limit from ports) while a live media server that is neither full nor draining does
   * not hold the room: a newcomer would open a part of it there.
   */
  #portsHold(roomId: string): number | undefined {
    const byServer = this.#portCapacity.get(roomId);
    if (!byServer || byServer.size === 0) return undefined;
    const live = this.#servers.list().filter((server) => !server.draining);
    if (live.some((server) => !server.load.full && !byServer.has(server.id))) return undefined;
    let members = 0;
    let seats = 0;
    for (const [serverId, capacity] of byServer) {
      if (!this.#servers.get(serverId)) continue;
      const peers = this.#announced.get(serverId)?.get(roomId) ?? 0;
      members = Math.max(members, peers);
      seats += capacity - peers;
    }
    return members + seats;
  }

  /** While the bus settles, the members the room's server announced (the store may have lost them). */
  #announcedCount(roomId: string): number {
    const host = this.settling ? this.hostOf(roomId) : null;
    return host ? (this.#announced.get(host.id)?.get(roomId) ?? 0) : 0;
  }

  /** The room each of `userIds` is in now (those in none are left out). */
  async roomsOf(userIds: readonly string[]): Promise<Map<string, string>> {
    const last = await this.#store.roomsOf(userIds);
    // The room they went into last, if they are still there and its server still lives.
    const peers = await this.peersOf([...new Set(last.values())]);
    return new Map([...last].filter(([userId, roomId]) => peers.get(roomId)?.includes(userId)));
  }

  /** Forgets a deleted room: whoever was in it has left. */
  async forget(roomId: string): Promise<void> {
    await this.#changed(roomId, await this.#store.remove(roomId));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#offRecovered();
    this.#announced.clear();
    this.#portCapacity.clear();
    this.#heardSinceOutage.clear();
    await Promise.all(this.#unsubscribe.splice(0).map((unsubscribe) => unsubscribe()));
  }

  #heard({ id, rooms, gone }: MediaServerAnnouncement): void {
    if (this.#closed) return;
    const before = this.#announced.get(id);
    if (gone || rooms === undefined) {
      for (const roomId of before?.keys() ?? []) this.#portCapacity.get(roomId)?.delete(id);
      this.#announced.delete(id);
      return;
    }
    const now = new Map(rooms.map((room) => [room.id, room.peers]));
    this.#announced.set(id, now);
    for (const roomId of before?.keys() ?? []) {
      if (!now.has(roomId)) this.#portCapacity.get(roomId)?.delete(id);
    }
    for (const room of rooms) {
      if (room.seats === undefined) continue;
      const byServer = this.#portCapacity.get(room.id) ?? new Map<string, number>();
      byServer.set(id, room.peers + room.seats);
      this.#portCapacity.set(room.id, byServer);
    }
    // Servers gone quiet are forgotten here too (MediaServers has dropped them by now).
    for (const serverId of this.#announced.keys()) {
      if (!this.#servers.get(serverId) && serverId !== id) this.#announced.delete(serverId);
    }
    // A list cut at the limit says nothing of the rooms left out.
    const closed =
      before && rooms.length < MEDIA_ANNOUNCE.maxRooms ? [...before.keys()].filter((r) => !now.has(r)) : [];
    this.#check(id, now, closed).catch((error: unknown) => {
      if (error instanceof RedisUnavailableError) return;
      this.#logger.warn('room members not checked against an announcement', { serverId: id, error });
    });
    if (this.settling && !this.#heardSinceOutage.has(id)) {
      this.#heardSinceOutage.add(id);
      for (const listener of this.#heldListeners) {
        listener(id, [...now.keys()]).catch((error: unknown) =>
          this.#logger.warn('rooms held after an outage not checked', { serverId: id, error }),
        );
      }
    }
  }

  /**
   * Compares what server `serverId` announces with the store: rooms whose members differ are
   * asked for again; rooms it no longer holds are forgotten if stored as its (a lost goodbye).
   */
  async #check(serverId: string, rooms: Map<string, number>, closed: string[]): Promise<void> {
    const stored = await this.#store.getMany([...rooms.keys()]);
    const differ = [...rooms].flatMap(([roomId, peers]) => {
      const members = stored.get(roomId);
      if (members?.serverId === serverId) return members.peers.length === peers ? [] : [roomId];
      // Stored as another live server's that still holds it: not this server's to correct.
      if (
        members &&
        this.#announced.get(members.serverId)?.has(roomId) &&
        this.#servers.get(members.serverId)
      )
        return [];
      return peers > 0 ? [roomId] : [];
    });
    for (const roomId of closed) {
      await this.#changed(roomId, await this.#store.set({ serverId, roomId, peers: [] }));
    }
    if (differ.length === 0) return;
    this.#logger.info('room members differ from a media server announcement; asking again', {
      serverId,
      rooms: differ.length,
    });
    await this.#bus.publish(roomCommandsChannel, { type: 'resync', serverId, roomIds: differ });
  }

  /**
   * Stores who a media server says is in a room (a room across media servers: each of its parts
   * says the whole room). A server's word stops counting once the room is stored as another
   * live server's when it is draining (its members are moving there, and the last of its lists,
   * the room emptied, must not overwrite where they went) or when it says its part emptied while
   * the other still holds the room.
   */
  async #receive(members: RoomMembers): Promise<void> {
    const draining = this.#servers.get(members.serverId)?.draining === true;
    if (draining || members.peers.length === 0) {
      const stored = (await this.#store.getMany([members.roomId])).get(members.roomId);
      const holder =
        stored && stored.serverId !== members.serverId ? this.#servers.get(stored.serverId) : null;
      const holds = draining || this.#announced.get(holder?.id ?? '')?.has(members.roomId) === true;
      if (holder && !holder.draining && holds) return;
    }
    await this.#changed(members.roomId, await this.#store.set(members));
  }

  async #changed(roomId: string, change: MemberChange): Promise<void> {
    if (change.entered.length === 0 && change.left.length === 0) return;
    await Promise.all(
      this.#listeners.map((listener) =>
        listener(roomId, change).catch((error: unknown) =>
          this.#logger.warn('room member change not announced', { error }),
        ),
      ),
    );
  }
}
