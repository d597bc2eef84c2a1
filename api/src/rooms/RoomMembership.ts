/**
 * Who is in each room now: media servers publish it on the bus after every join and leave
 * (ROOM_MEMBERS_CHANNEL), every API process stores it, and rooms read it for their member
 * counts, participants and the capacity check. A room on a media server that stopped
 * announcing counts as empty: its members are gone with it.
 */
import { type Bus, roomMembersChannel } from '@voice/bus';
import type { Logger } from '../logger.ts';
import type { MediaServers } from '../media/MediaServers.ts';
import type { MemberStore } from './MemberStore.ts';

export class RoomMembership {
  readonly #store: MemberStore;
  readonly #servers: MediaServers;
  #unsubscribe: (() => Promise<void>) | null = null;
  #closed = false;

  static async create(
    bus: Bus,
    store: MemberStore,
    servers: MediaServers,
    logger: Logger,
  ): Promise<RoomMembership> {
    const membership = new RoomMembership(store, servers);
    membership.#unsubscribe = await bus.subscribe(roomMembersChannel, (members) =>
      membership.#store
        .set(members)
        .catch((error: unknown) => logger.warn('room members not stored', { error })),
    );
    return membership;
  }

  private constructor(store: MemberStore, servers: MediaServers) {
    this.#store = store;
    this.#servers = servers;
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

  /** Forgets a deleted room. */
  forget(roomId: string): Promise<void> {
    return this.#store.remove(roomId);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#unsubscribe?.();
  }
}
