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

/** A pending request with the other person's public profile (the sender, or the recipient for sent ones). */
export interface RequestRow {
  id: string;
  created_at: Date;
  user_id: string;
  username: string;
  display_name: string | null;
  avatar_url: string | null;
}

/** Trigram indexes only help from three characters on; shorter terms match prefixes. */
const TRIGRAM_MIN = 3;

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

  /** Makes each pair friends in one insert (seeding test accounts: no request between them). */
  async befriendPairs(pairs: ReadonlyArray<readonly [string, string]>, trx: Db): Promise<void> {
    if (pairs.length === 0) return;
    await trx('friendships')
      .insert(
        pairs.flatMap(([a, b]) => [
          { user_id: a, friend_id: b },
          { user_id: b, friend_id: a },
        ]),
      )
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

  /** Requests others sent to `userId`, newest first, with each sender. */
  incomingRequests(userId: string): Promise<RequestRow[]> {
    return this.#requests('from_user_id', 'to_user_id', userId);
  }

  /** Requests `userId` sent that are still pending, newest first, with each recipient. */
  outgoingRequests(userId: string): Promise<RequestRow[]> {
    return this.#requests('to_user_id', 'from_user_id', userId);
  }

  #requests(
    other: 'from_user_id' | 'to_user_id',
    mine: 'from_user_id' | 'to_user_id',
    userId: string,
  ): Promise<RequestRow[]> {
    return this.db('friend_requests as r')
      .join('users as u', 'u.id', `r.${other}`)
      .where(`r.${mine}`, userId)
      .orderBy('r.created_at', 'desc')
      .select('r.id', 'r.created_at', 'u.id as user_id', 'u.username', 'u.display_name', 'u.avatar_url');
  }

  /**
   * Case-insensitive search on username and display name among accounts of the searcher's
   * kind (people, or load-test accounts), at most 20 users, best
   * first: the exact username, usernames starting with the term, display names
   * starting with it (each alphabetical), then, for terms of 3 or more characters,
   * names containing it. Every step reads at most 20 rows from an index, so the cost
   * does not grow with the number of users.
   */
  async search(userId: string, term: string): Promise<SearchRow[]> {
    const lowered = term.toLowerCase();
    const escaped = literalLike(lowered);
    const limit = LIMITS.searchMaxResults;
    // People find people and test accounts find test accounts (loadtest/): neither sees the other.
    const sameKind = [
      'is_loadtest = (SELECT searcher.is_loadtest FROM users AS searcher WHERE searcher.id = ?)',
      [userId],
    ] as const;
    const byPrefix = (column: 'username' | 'display_name') =>
      this.db<UserRow>('users')
        .whereNot('id', userId)
        .whereRaw(...sameKind)
        .whereRaw(`lower(${column}) COLLATE "C" LIKE ? ESCAPE '\\'`, [`${escaped}%`])
        .orderByRaw(`lower(${column}) COLLATE "C"`)
        .limit(limit + 1);

    // One round trip for both prefix lookups.
    const prefixed: Array<UserRow & { step: number }> = await this.db.select('*').from(
      this.db
        .select('*', this.db.raw('1 AS step'))
        .from(byPrefix('username').as('a'))
        .unionAll((q) => q.select('*', this.db.raw('2 AS step')).from(byPrefix('display_name').as('b')), true)
        .as('prefixed'),
    );
    const usernames = prefixed.filter((r) => r.step === 1);
    const displayNames = prefixed.filter((r) => r.step === 2);
    const found = new Map<string, UserRow>();
    const exact = usernames.filter((u) => u.username.toLowerCase() === lowered);
    for (const { step: _, ...row } of [...exact, ...usernames, ...displayNames]) {
      if (found.size < limit) found.set(row.id, row);
    }

    if (found.size < limit && lowered.length >= TRIGRAM_MIN) {
      const more = await this.db<UserRow>('users')
        .whereNot('id', userId)
        .whereRaw(...sameKind)
        .whereNotIn('id', [...found.keys()])
        .whereRaw("search_text LIKE ? ESCAPE '\\'", [`%${escaped}%`])
        .limit(limit - found.size);
      more.sort((a, b) => a.username.toLowerCase().localeCompare(b.username.toLowerCase()));
      for (const row of more) found.set(row.id, row);
    }
    return this.#withRelationships(userId, [...found.values()]);
  }

  async #withRelationships(userId: string, rows: UserRow[]): Promise<SearchRow[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    // One round trip for the three relationships.
    const { rows: links } = (await this.db.raw(
      `SELECT 'friend' AS kind, friend_id AS id FROM friendships WHERE user_id = ? AND friend_id = ANY(?)
       UNION ALL
       SELECT 'sent', to_user_id FROM friend_requests WHERE from_user_id = ? AND to_user_id = ANY(?)
       UNION ALL
       SELECT 'received', from_user_id FROM friend_requests WHERE to_user_id = ? AND from_user_id = ANY(?)`,
      [userId, ids, userId, ids, userId, ids],
    )) as { rows: Array<{ kind: 'friend' | 'sent' | 'received'; id: string }> };
    const of = (kind: string) => new Set(links.filter((l) => l.kind === kind).map((l) => l.id));
    const [f, s, r] = [of('friend'), of('sent'), of('received')];
    return rows.map((row) => ({
      ...row,
      is_friend: f.has(row.id),
      request_sent: s.has(row.id),
      request_received: r.has(row.id),
    }));
  }
}
