/**
 * "In room X" beside online, offline and in call (issue 10 part 3): the room each friend is
 * in, named only to those who may see it ("in a private room" to the others), in the friends
 * list and live in `friend-room-changed` whenever someone enters or leaves a room.
 */
import type { UserRoom } from '@voice/protocol';
import type { FriendRepository } from '../friends/FriendRepository.ts';
import type { Notifier } from '../socket/Notifier.ts';
import type { MemberChange } from './MemberStore.ts';
import type { RoomMembership } from './RoomMembership.ts';
import type { RoomRepository } from './RoomRepository.ts';

export interface FriendRoomDeps {
  membership: RoomMembership;
  rooms: RoomRepository;
  friends: FriendRepository;
  notifier: Notifier;
}

/** A room's name, and who of those asked about may see it. */
interface SeenRoom {
  id: string;
  name: string;
  viewers: Set<string>;
}

export class FriendRooms {
  constructor(readonly deps: FriendRoomDeps) {
    // Told once per change, by the process that stored it first (RoomMembership).
    deps.membership.onChange((_roomId, change) => this.#announce(change));
  }

  /** The rooms `userIds` are in, as `viewerId` may know them; those in none are left out. */
  async roomsFor(viewerId: string, userIds: readonly string[]): Promise<Map<string, UserRoom>> {
    const roomOf = await this.deps.membership.roomsOf(userIds);
    const seen = new Map<string, UserRoom>();
    await Promise.all(
      [...new Set(roomOf.values())].map(async (roomId) => {
        const room = await this.#roomAsSeenBy(roomId, [viewerId]);
        if (room) seen.set(roomId, { id: room.id, name: room.viewers.has(viewerId) ? room.name : null });
      }),
    );
    const rooms = new Map<string, UserRoom>();
    for (const [userId, roomId] of roomOf) {
      const room = seen.get(roomId);
      if (room) rooms.set(userId, room);
    }
    return rooms;
  }

  /** Tells the friends of everyone who came or went where they are now. */
  async #announce({ entered, left }: MemberChange): Promise<void> {
    const people = [...new Set([...entered, ...left])];
    // Where they are now: someone who left one room may be in another by now.
    const roomOf = await this.deps.membership.roomsOf(people);
    await Promise.all(
      people.map(async (userId) => {
        const friendIds = await this.deps.friends.friendIds(userId);
        if (friendIds.length === 0) return;
        const roomId = roomOf.get(userId);
        const room = roomId === undefined ? null : await this.#roomAsSeenBy(roomId, friendIds);
        if (!room) {
          await this.deps.notifier.notifyMany(friendIds, 'friend-room-changed', { userId, room: null });
          return;
        }
        const named = friendIds.filter((id) => room.viewers.has(id));
        const unnamed = friendIds.filter((id) => !room.viewers.has(id));
        await Promise.all([
          named.length > 0 &&
            this.deps.notifier.notifyMany(named, 'friend-room-changed', {
              userId,
              room: { id: room.id, name: room.name },
            }),
          unnamed.length > 0 &&
            this.deps.notifier.notifyMany(unnamed, 'friend-room-changed', {
              userId,
              room: { id: room.id, name: null },
            }),
        ]);
      }),
    );
  }

  /** The room, and which of `userIds` may see its name; null when it is gone. */
  async #roomAsSeenBy(roomId: string, userIds: readonly string[]): Promise<SeenRoom | null> {
    const [row, viewers] = await Promise.all([
      this.deps.rooms.find(roomId),
      this.deps.rooms.viewersAmong(roomId, userIds),
    ]);
    return row ? { id: row.id, name: row.name, viewers } : null;
  }
}
