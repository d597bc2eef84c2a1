/** Friend requests, friendships and search. Every change is one transaction under a pair lock. */
import type {
  FriendRequest,
  SearchResult,
  SentFriendRequest,
  User,
  UserRoom,
  UserSummary,
} from '@voice/protocol';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors.ts';
import type { PresenceStore } from '../presence/PresenceStore.ts';
import type { Notifier } from '../socket/Notifier.ts';
import { presentUser, summarize } from '../users/presenter.ts';
import type { UserRepository, UserRow } from '../users/UserRepository.ts';
import type { FriendRepository, RequestRow, SearchRow } from './FriendRepository.ts';

/** Why a friend request between a load-test account and a person is refused. */
export const LOADTEST_APART_MESSAGE =
  'Load-test accounts and real accounts cannot send each other friend requests';

export interface FriendDeps {
  db: Db;
  friends: FriendRepository;
  users: UserRepository;
  presence: PresenceStore;
  notifier: Notifier;
  /** The rooms friends are in ("in room X"); without it friends carry no `room`. */
  rooms?: FriendRoomSource;
}

/** Where people are, as one of their friends may know it (rooms/FriendRooms.ts). */
export interface FriendRoomSource {
  roomsFor(viewerId: string, userIds: readonly string[]): Promise<Map<string, UserRoom>>;
}

export class FriendService {
  constructor(readonly deps: FriendDeps) {}

  /** Public profiles of `rows` with live presence. */
  async present(rows: UserRow[]): Promise<User[]> {
    const ids = rows.map((r) => r.id);
    const [online, inCall] = await Promise.all([
      this.deps.presence.onlineAmong(ids),
      this.deps.presence.inCallAmong(ids),
    ]);
    // null (unknown) when the presence store cannot answer now, e.g. while Redis hangs.
    return rows.map((row) =>
      presentUser(row, {
        presence: {
          isOnline: online ? online.has(row.id) : null,
          isInCall: inCall ? inCall.has(row.id) : null,
        },
      }),
    );
  }

  async search(userId: string, term: string): Promise<SearchResult[]> {
    const rows = await this.deps.friends.search(userId, term);
    const users = await this.present(rows);
    return users.map((user, i) => ({ ...user, relationship: relationship(rows[i] as SearchRow) }));
  }

  async listFriends(userId: string): Promise<User[]> {
    return this.#withRooms(userId, await this.present(await this.deps.friends.friends(userId)));
  }

  /** `friends` with the room each is in, as `viewerId` may know it; unknown (left out) when Redis fails. */
  async #withRooms(viewerId: string, friends: User[]): Promise<User[]> {
    const { rooms } = this.deps;
    if (!rooms || friends.length === 0) return friends;
    const found = await rooms
      .roomsFor(
        viewerId,
        friends.map((friend) => friend.id),
      )
      .catch(() => null);
    return found ? friends.map((friend) => ({ ...friend, room: found.get(friend.id) ?? null })) : friends;
  }

  async listRequests(userId: string): Promise<FriendRequest[]> {
    const rows = await this.deps.friends.incomingRequests(userId);
    return rows.map((r) => ({ id: r.id, from: requestUser(r), created_at: r.created_at.toISOString() }));
  }

  /** Requests `userId` sent that are still pending. */
  async listSentRequests(userId: string): Promise<SentFriendRequest[]> {
    const rows = await this.deps.friends.outgoingRequests(userId);
    return rows.map((r) => ({ id: r.id, to: requestUser(r), created_at: r.created_at.toISOString() }));
  }

  /**
   * Asks `targetId` to be friends. Asking twice changes nothing; when the target had
   * already asked, the two become friends at once.
   */
  async sendRequest(userId: string, targetId: string): Promise<'pending' | 'friends'> {
    if (userId === targetId) throw new AppError('CANNOT_FRIEND_SELF', 'userId');
    const { db, friends, users } = this.deps;
    const [me, target] = await Promise.all([users.findById(userId), users.findById(targetId)]);
    if (!me || !target) throw new AppError('USER_NOT_FOUND', 'userId');
    // Test accounts (loadtest/) live apart: no presence, room or call of theirs reaches a person.
    if (me.is_loadtest !== target.is_loadtest) {
      throw new AppError('FORBIDDEN', 'userId', LOADTEST_APART_MESSAGE);
    }

    const outcome = await db.transaction(async (trx) => {
      await friends.lockPair(trx, userId, targetId);
      if (await friends.areFriends(userId, targetId, trx)) throw new AppError('ALREADY_FRIENDS', 'userId');
      if (await friends.hasRequest(targetId, userId, trx)) {
        await friends.befriend(userId, targetId, trx);
        return 'friends' as const;
      }
      if (await friends.hasRequest(userId, targetId, trx)) return 'repeated' as const;
      await friends.addRequest(userId, targetId, trx);
      return 'pending' as const;
    });

    if (outcome === 'friends') await this.#announceFriendship(me, target);
    if (outcome === 'pending') {
      const { notifier } = this.deps;
      await Promise.all([
        notifier.notify(targetId, 'friend-request-received', { from: summarize(me) }),
        // The sender's other tabs add it to their Sent lists.
        notifier.notify(userId, 'friend-request-sent', {
          to: summarize(target),
          created_at: new Date().toISOString(),
        }),
      ]);
    }
    return outcome === 'friends' ? 'friends' : 'pending';
  }

  /** Accepts the pending request `fromId` sent to `userId`. */
  async accept(userId: string, fromId: string): Promise<void> {
    const { db, friends, users } = this.deps;
    await db.transaction(async (trx) => {
      await friends.lockPair(trx, userId, fromId);
      if (!(await friends.deleteRequest(fromId, userId, trx)))
        throw new AppError('FRIEND_REQUEST_NOT_FOUND', 'userId');
      await friends.befriend(userId, fromId, trx);
    });
    const [me, other] = await Promise.all([users.findById(userId), users.findById(fromId)]);
    if (me && other) await this.#announceFriendship(me, other);
  }

  async reject(userId: string, fromId: string): Promise<void> {
    const { db, friends } = this.deps;
    const removed = await db.transaction(async (trx) => {
      await friends.lockPair(trx, userId, fromId);
      return friends.deleteRequest(fromId, userId, trx);
    });
    if (!removed) throw new AppError('FRIEND_REQUEST_NOT_FOUND', 'userId');
    // Every tab of the person who rejected drops the request; the sender's tabs drop it
    // from their Sent lists, and their search results offer "Add" again.
    const { notifier } = this.deps;
    await Promise.all([
      notifier.notify(userId, 'friend-request-rejected', { userId: fromId }),
      notifier.notify(fromId, 'friend-request-rejected', { userId }),
    ]);
  }

  /** Withdraws the pending request `userId` sent to `targetId`. */
  async cancel(userId: string, targetId: string): Promise<void> {
    const { db, friends, notifier } = this.deps;
    const removed = await db.transaction(async (trx) => {
      await friends.lockPair(trx, userId, targetId);
      return friends.deleteRequest(userId, targetId, trx);
    });
    if (!removed) throw new AppError('FRIEND_REQUEST_NOT_FOUND', 'id');
    // The recipient's incoming list drops it; so do the Sent lists of the sender's other tabs.
    await Promise.all([
      notifier.notify(targetId, 'friend-request-cancelled', { userId }),
      notifier.notify(userId, 'friend-request-cancelled', { userId: targetId }),
    ]);
  }

  async unfriend(userId: string, friendId: string): Promise<void> {
    const { db, friends, notifier } = this.deps;
    const removed = await db.transaction(async (trx) => {
      await friends.lockPair(trx, userId, friendId);
      return friends.unfriend(userId, friendId, trx);
    });
    if (!removed) throw new AppError('NOT_FRIENDS', 'id');
    // Both sides' tabs drop the other from their lists.
    await Promise.all([
      notifier.notify(friendId, 'friend-removed', { userId }),
      notifier.notify(userId, 'friend-removed', { userId: friendId }),
    ]);
  }

  /** Each side learns of the new friend, with the friend's live presence. */
  async #announceFriendship(a: UserRow, b: UserRow): Promise<void> {
    const [presentA, presentB] = (await this.present([a, b])) as [User, User];
    const [[toA], [toB]] = await Promise.all([
      this.#withRooms(a.id, [presentB]),
      this.#withRooms(b.id, [presentA]),
    ]);
    await Promise.all([
      this.deps.notifier.notify(a.id, 'friend-request-accepted', { user: toA as User }),
      this.deps.notifier.notify(b.id, 'friend-request-accepted', { user: toB as User }),
    ]);
  }
}

/** The other person of a request row. */
function requestUser(row: RequestRow): UserSummary {
  return {
    id: row.user_id,
    username: row.username,
    display_name: row.display_name,
    avatar_url: row.avatar_url,
  };
}

function relationship(row: SearchRow): SearchResult['relationship'] {
  if (row.is_friend) return 'friend';
  if (row.request_sent) return 'request_sent';
  if (row.request_received) return 'request_received';
  return 'none';
}
