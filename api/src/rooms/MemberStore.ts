/**
 * Who is in which room now, as the media servers last said (RedisMemberStore with
 * REDIS_URL, so an API process started later knows too; this memory store otherwise).
 */
import type { RoomMembers } from '@voice/protocol';

export interface MemberStore {
  /**
   * Stores a media server's word on one room; no peers forgets the room, unless another
   * server hosts it by now (the old one's late goodbye must not empty the new one's room).
   */
  set(members: RoomMembers): Promise<void>;
  /** The stored members of those of `roomIds` that have any. */
  getMany(roomIds: readonly string[]): Promise<Map<string, RoomMembers>>;
  remove(roomId: string): Promise<void>;
}

/** A single process: members in its own memory. */
export class MemoryMemberStore implements MemberStore {
  readonly #rooms = new Map<string, RoomMembers>();

  async set(members: RoomMembers): Promise<void> {
    if (members.peers.length === 0) {
      if (this.#rooms.get(members.roomId)?.serverId === members.serverId) this.#rooms.delete(members.roomId);
    } else this.#rooms.set(members.roomId, { ...members, peers: [...members.peers] });
  }

  async getMany(roomIds: readonly string[]): Promise<Map<string, RoomMembers>> {
    const found = new Map<string, RoomMembers>();
    for (const roomId of roomIds) {
      const members = this.#rooms.get(roomId);
      if (members) found.set(roomId, members);
    }
    return found;
  }

  async remove(roomId: string): Promise<void> {
    this.#rooms.delete(roomId);
  }
}
