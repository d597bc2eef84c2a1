/**
 * The load tester's queries: test accounts in bulk, by username or by prefix. Only rows
 * marked `is_loadtest` are ever changed or removed here.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/index.ts';
import { literalLike } from '../friends/FriendRepository.ts';

/** What seeding reads back of an account with a wanted username, a test account or not. */
export interface AccountRow {
  id: string;
  username: string;
  display_name: string | null;
  is_loadtest: boolean;
}

export interface NewTestAccount {
  username: string;
  displayName: string;
}

/** Not a hash of anything: verifyPassword refuses it (no `scrypt$` scheme), so no password opens it. */
const UNUSABLE_PASSWORD = 'loadtest$no-password';
/** `.invalid` is reserved (RFC 2606): no mail to a test account can ever be delivered. */
const EMAIL_DOMAIN = 'loadtest.invalid';

export class LoadtestRepository {
  constructor(readonly db: Db) {}

  /**
   * Inserts the accounts that do not exist yet; a username (or its address) already taken is
   * left as it is, for `byUsernames` to tell whose it is.
   */
  async createMissing(accounts: readonly NewTestAccount[], trx: Db): Promise<void> {
    const now = new Date();
    await trx('users')
      .insert(
        accounts.map(({ username, displayName }) => ({
          id: randomUUID(),
          username,
          email: `${username}@${EMAIL_DOMAIN}`,
          password_hash: UNUSABLE_PASSWORD,
          display_name: displayName,
          // Reports quote the app's own error texts: English reads best there.
          language: 'en',
          // Straight to the dashboard, as someone who signed up long ago.
          onboarded_at: now,
          is_loadtest: true,
        })),
      )
      // No target: whichever unique index (username or email) a row hits, it is skipped.
      .onConflict()
      .ignore();
  }

  /** The accounts holding `usernames` (any letter case), test accounts or not. */
  async byUsernames(usernames: readonly string[], trx: Db): Promise<AccountRow[]> {
    return trx('users')
      .whereRaw('lower(username) = ANY(?)', [usernames.map((name) => name.toLowerCase())])
      .select('id', 'username', 'display_name', 'is_loadtest');
  }

  /** The test accounts whose username starts with `prefix` (never a person's account). */
  async withPrefix(prefix: string): Promise<Array<{ id: string; avatar_url: string | null }>> {
    return (
      this.db('users')
        .where('is_loadtest', true)
        // The partial index users_loadtest_username answers this.
        .whereRaw(`lower(username) COLLATE "C" LIKE ? ESCAPE '\\'`, [`${literalLike(prefix.toLowerCase())}%`])
        .select('id', 'avatar_url')
    );
  }

  /** The rooms `adminIds` administer. */
  async roomsAdministeredBy(adminIds: readonly string[]): Promise<Array<{ id: string; admin_id: string }>> {
    if (adminIds.length === 0) return [];
    return this.db('rooms').whereIn('admin_id', adminIds).select('id', 'admin_id');
  }

  /**
   * Deletes the test accounts among `ids`; their sessions, friendships, requests, call
   * history, room visits, invitations and push subscriptions go by ON DELETE CASCADE.
   */
  async deleteTestAccounts(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.db('users').whereIn('id', ids).andWhere('is_loadtest', true).delete();
  }
}
