/**
 * Who is in which room now, as the media servers last said (RedisMemberStore with
 * REDIS_URL, so an API process started later knows too; this memory store otherwise), and
 * the room each person went into last, for their friends' "in room X".
 *
 * Also the seats held for people on their way in: a join that is let in holds a seat until
 * its room token is used (the person shows up among the members, which lets the seat go) or
 * expires. The capacity check and the hold are one step, so simultaneous joins never give
 * away more seats than the room has.
 */
import type { RoomMembers } from '@voice/protocol';

/** Who came into a room and who left it with one stored change. */
export interface MemberChange {
  entered: string[];
  left: string[];
}

export const NO_CHANGE: MemberChange = { entered: [], left: [] };

/** A seat asked for (see MemberStore.reserveSeat). */
export interface SeatRequest {
  roomId: string;
  userId: string;
  capacity: number;
  /** At least this many count as taken (the room's server announced them: see RoomMembership). */
  floor: number;
  /** The media servers alive now: the members a dead one stored for a room count for nothing. */
  liveServers: readonly string[];
  nowMs: number;
  /** When the hold lapses (the room token's expiry). */
  untilMs: number;
}

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
  /**
   * Holds a seat for the request's user when the members and the seats held for others leave
   * one free (a seat they hold already is held longer; one of the members needs none). False:
   * the room is full.
   */
  reserveSeat(request: SeatRequest): Promise<boolean>;
  /** Lets `userId`'s held seat in `roomId` go (their join failed after all). */
  releaseSeat(roomId: string, userId: string): Promise<void>;
}

/** A single process: members in its own memory. */
export class MemoryMemberStore implements MemberStore {
  readonly #rooms = new Map<string, RoomMembers>();
  readonly #roomOf = new Map<string, string>();
  /** Per room: user id → when their held seat lapses. */
  readonly #seats = new Map<string, Map<string, number>>();

  async set(members: RoomMembers): Promise<MemberChange> {
    const stored = this.#rooms.get(members.roomId);
    if (members.peers.length === 0) {
      if (stored?.serverId !== members.serverId) return NO_CHANGE;
      this.#rooms.delete(members.roomId);
    } else this.#rooms.set(members.roomId, { ...members, peers: [...members.peers] });
    const change = this.#record(members.roomId, stored?.peers ?? [], members.peers);
    // In (their token used) or gone: no seat to hold for them any more.
    const seats = this.#seats.get(members.roomId);
    for (const userId of [...members.peers, ...change.left]) seats?.delete(userId);
    return change;
  }

  async reserveSeat({
    roomId,
    userId,
    capacity,
    floor,
    liveServers,
    nowMs,
    untilMs,
  }: SeatRequest): Promise<boolean> {
    const stored = this.#rooms.get(roomId);
    const peers = stored && liveServers.includes(stored.serverId) ? stored.peers : [];
    if (peers.includes(userId)) return true;
    const seats = this.#seats.get(roomId) ?? new Map<string, number>();
    for (const [holder, until] of seats) if (until <= nowMs) seats.delete(holder);
    const heldByOthers = [...seats.keys()].filter((holder) => holder !== userId && !peers.includes(holder));
    const taken = Math.max(peers.length + heldByOthers.length, floor);
    if (taken >= capacity && !seats.has(userId)) return false;
    seats.set(userId, untilMs);
    this.#seats.set(roomId, seats);
    return true;
  }

  async releaseSeat(roomId: string, userId: string): Promise<void> {
    this.#seats.get(roomId)?.delete(userId);
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
    this.#seats.delete(roomId);
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
