/**
 * Who is in which room now, as the media servers last said (RedisMemberStore with
 * REDIS_URL, so an API process started later knows too; this memory store otherwise), and
 * the room each person went into last, for their friends' "in room X".
 */
import type { RoomMembers } from '@voice/protocol';

/** Who came into a room and who left it with one stored change. */
export interface MemberChange {
  entered: string[];
  left: string[];
}

export const NO_CHANGE: MemberChange = { entered: [], left: [] };

export interface MemberStore {
  /**
   * Stores a media server's word on one room; no peers forgets the room, unless another
   * server hosts it by now (the old one's late goodbye must not empty the new one's room).
   * Every API process stores the same word: only the first store changes anything, so only
   * its caller gets a change back (the others get NO_CHANGE) and announces it.
   */
  set(members: RoomMembers): Promise<MemberChange>;
  /** The stored members of those of `roomIds` that have any. */
  getMany(roomIds: readonly string[]): Promise<Map<string, RoomMembers>>;
  /** The room each of `userIds` went into last (they may have left it since: check its members). */
  roomsOf(userIds: readonly string[]): Promise<Map<string, string>>;
  /** Forgets a deleted room; answers who was in it, as `left`. */
  remove(roomId: string): Promise<MemberChange>;
}

/** A single process: members in its own memory. */
export class MemoryMemberStore implements MemberStore {
  readonly #rooms = new Map<string, RoomMembers>();
  readonly #roomOf = new Map<string, string>();

  async set(members: RoomMembers): Promise<MemberChange> {
    const stored = this.#rooms.get(members.roomId);
    if (members.peers.length === 0) {
      if (stored?.serverId !== members.serverId) return NO_CHANGE;
      this.#rooms.delete(members.roomId);
    } else this.#rooms.set(members.roomId, { ...members, peers: [...members.peers] });
    return this.#record(members.roomId, stored?.peers ?? [], members.peers);
  }

  async getMany(roomIds: readonly string[]): Promise<Map<string, RoomMembers>> {
    const found = new Map<string, RoomMembers>();
    for (const roomId of roomIds) {
      const members = this.#rooms.get(roomId);
      if (members) found.set(roomId, members);
    }
    return found;
  }

  async roomsOf(userIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const userId of userIds) {
      const roomId = this.#roomOf.get(userId);
      if (roomId !== undefined) found.set(userId, roomId);
    }
    return found;
  }

  async remove(roomId: string): Promise<MemberChange> {
    const stored = this.#rooms.get(roomId);
    this.#rooms.delete(roomId);
    return this.#record(roomId, stored?.peers ?? [], []);
  }

  #record(roomId: string, before: readonly string[], after: readonly string[]): MemberChange {
    const entered = after.filter((id) => !before.includes(id));
    const left = before.filter((id) => !after.includes(id));
    for (const userId of entered) this.#roomOf.set(userId, roomId);
    for (const userId of left) if (this.#roomOf.get(userId) === roomId) this.#roomOf.delete(userId);
    return { entered, left };
  }
}
