/** Queries of friendships and friend requests. */
import { createHash, randomUUID } from 'node:crypto';
import { LIMITS } from '@voice/protocol';
import type { Db } from '../db/index.ts';
import type { UserRow } from '../users/UserRepository.ts';

export interface SearchRow extends UserRow {
  is_friend: boolean;
  request_sent: boolean;
  request_received: boolean;
}

export interface RequestRow {
  id: string;
  created_at: Date;
  from_id: string;
  from_username: string;
  from_display_name: string | null;
  from_avatar_url: string | null;
}

/** LIKE pattern matching `term` literally: %, _ and \ lose their special meaning. */
export function literalLike(term: string): string {
  return term.replace(/[\\%_]/g, '\\$&');
}

/** A 64-bit advisory-lock key for an unordered pair of users. */
function pairLockKey(a: string, b: string): string {
  const [x, y] = a < b ? [a, b] : [b, a];
  return createHash('sha256').update(`${x}:${y}`).digest().readBigInt64BE(0).toString();
}

export class FriendRepository {
  constructor(readonly db: Db) {}

  /**
   * Serializes every change between two people: requests both ways, accept, reject
   * and unfriend on the same pair run one after another, whatever the process.
   */
  async lockPair(trx: Db, a: string, b: string): Promise<void> {
    await trx.raw('SELECT pg_advisory_xact_lock(?::bigint)', [pairLockKey(a, b)]);
  }

  async areFriends(a: string, b: string, trx: Db = this.db): Promise<boolean> {
    return (await trx('friendships').where({ user_id: a, friend_id: b }).first('user_id')) !== undefined;
  }

  async hasRequest(from: string, to: string, trx: Db = this.db): Promise<boolean> {
    return (
      (await trx('friend_requests').where({ from_user_id: from, to_user_id: to }).first('id')) !== undefined
    );
  }

  async addRequest(from: string, to: string, trx: Db): Promise<void> {
    await trx('friend_requests')
      .insert({ id: randomUUID(), from_user_id: from, to_user_id: to })
      .onConflict(['from_user_id', 'to_user_id'])
      .ignore();
  }

  /** Deletes the request from → to; true when there was one. */
  async deleteRequest(from: string, to: string, trx: Db): Promise<boolean> {
    return (await trx('friend_requests').where({ from_user_id: from, to_user_id: to }).delete()) > 0;
  }

  /** Makes a and b friends and drops any request between them. */
  async befriend(a: string, b: string, trx: Db): Promise<void> {
    await trx('friend_requests')
      .where({ from_user_id: a, to_user_id: b })
      .orWhere({ from_user_id: b, to_user_id: a })
      .delete();
    await trx('friendships')
      .insert([
        { user_id: a, friend_id: b },
        { user_id: b, friend_id: a },
      ])
      .onConflict(['user_id', 'friend_id'])
      .ignore();
  }

  /** Ends a friendship in both directions; true when there was one. */
  async unfriend(a: string, b: string, trx: Db): Promise<boolean> {
    const deleted = await trx('friendships')
      .where({ user_id: a, friend_id: b })
      .orWhere({ user_id: b, friend_id: a })
      .delete();
    return deleted > 0;
  }

  friendIds(userId: string): Promise<string[]> {
    return this.db('friendships').where({ user_id: userId }).pluck('friend_id');
  }

  friends(userId: string): Promise<UserRow[]> {
    return this.db<UserRow>('users')
      .join('friendships', 'friendships.friend_id', 'users.id')
      .where('friendships.user_id', userId)
      .orderByRaw('lower(coalesce(users.display_name, users.username))')
      .select('users.*');
  }

  incomingRequests(userId: string): Promise<RequestRow[]> {
    return this.db('friend_requests as r')
      .join('users as u', 'u.id', 'r.from_user_id')
      .where('r.to_user_id', userId)
      .orderBy('r.created_at', 'desc')
      .select(
        'r.id',
        'r.created_at',
        'u.id as from_id',
        'u.username as from_username',
        'u.display_name as from_display_name',
        'u.avatar_url as from_avatar_url',
      );
  }

  /** Case-insensitive substring search on username and display name; best matches first. */
  search(userId: string, term: string): Promise<SearchRow[]> {
    const lowered = term.toLowerCase();
    const contains = `%${literalLike(lowered)}%`;
    const prefix = `${literalLike(lowered)}%`;
    return this.db<UserRow>('users as u')
      .whereNot('u.id', userId)
      .andWhere((q) =>
        q
          .whereRaw("lower(u.username) LIKE ? ESCAPE '\\'", [contains])
          .orWhereRaw("lower(coalesce(u.display_name, '')) LIKE ? ESCAPE '\\'", [contains]),
      )
      .select(
        'u.*',
        this.db.raw(
          'EXISTS (SELECT 1 FROM friendships f WHERE f.user_id = ? AND f.friend_id = u.id) AS is_friend',
          [userId],
        ),
        this.db.raw(
          'EXISTS (SELECT 1 FROM friend_requests r WHERE r.from_user_id = ? AND r.to_user_id = u.id) AS request_sent',
          [userId],
        ),
        this.db.raw(
          'EXISTS (SELECT 1 FROM friend_requests r WHERE r.from_user_id = u.id AND r.to_user_id = ?) AS request_received',
          [userId],
        ),
      )
      .orderByRaw(
        "lower(u.username) = ? DESC, lower(u.username) LIKE ? ESCAPE '\\' DESC, lower(u.username)",
        [lowered, prefix],
      )
      .limit(LIMITS.searchMaxResults);
  }
}
