/**
 * Who is in each room now: media servers publish it on the bus after every join and leave
 * (ROOM_MEMBERS_CHANNEL), every API process stores it, and rooms read it for their member
 * counts, participants and the capacity check. A room on a media server that stopped
 * announcing counts as empty: its members are gone with it.
 *
 * The one process whose store saw a change tells its listeners (the live room list and
 * friends' "in room X"), so a change is announced once however many processes there are.
 */
import { type Bus, roomMembersChannel } from '@voice/bus';
import type { Logger } from '../logger.ts';
import type { MediaServers } from '../media/MediaServers.ts';
import type { MemberChange, MemberStore } from './MemberStore.ts';

/** Told once per change of who is in `roomId`. */
export type MemberListener = (roomId: string, change: MemberChange) => Promise<void>;

export class RoomMembership {
  readonly #store: MemberStore;
  readonly #servers: MediaServers;
  readonly #logger: Logger;
  readonly #listeners: MemberListener[] = [];
  #unsubscribe: (() => Promise<void>) | null = null;
  #closed = false;

  static async create(
    bus: Bus,
    store: MemberStore,
    servers: MediaServers,
    logger: Logger,
  ): Promise<RoomMembership> {
    const membership = new RoomMembership(store, servers, logger);
    membership.#unsubscribe = await bus.subscribe(roomMembersChannel, (members) =>
      membership.#store.set(members).then(
        (change) => membership.#changed(members.roomId, change),
        (error: unknown) => logger.warn('room members not stored', { error }),
      ),
    );
    return membership;
  }

  private constructor(store: MemberStore, servers: MediaServers, logger: Logger) {
    this.#store = store;
    this.#servers = servers;
    this.#logger = logger;
  }

  /** Has `listener` told of every change of members this process stores first. */
  onChange(listener: MemberListener): void {
    this.#listeners.push(listener);
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
    await this.#unsubscribe?.();
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
