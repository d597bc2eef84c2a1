/**
 * Test accounts for the load tester (issue 20 item 2): seeded in bulk, in one transaction,
 * with session tokens like a sign-in hands out and the friendships asked for; removed by
 * prefix with whatever hangs off them. A person's account is never touched, even when its
 * username fits the pattern.
 */
import type { LoadtestBefriend, SeedAccount } from '@voice/protocol';
import type { Sessions } from '../auth/Sessions.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors.ts';
import type { FriendRepository } from '../friends/FriendRepository.ts';
import type { Logger } from '../logger.ts';
import type { Notifier } from '../socket/Notifier.ts';
import type { LoadtestRepository } from './LoadtestRepository.ts';

export interface LoadtestDeps {
  db: Db;
  accounts: LoadtestRepository;
  friendships: Pick<FriendRepository, 'befriendPairs'>;
  sessions: Pick<Sessions, 'issueMany' | 'userChanged'>;
  /** Deletes a room as its admin would: its media server closes it, its viewers see it go. */
  rooms: { delete(adminId: string, roomId: string): Promise<void> };
  /** Frees an uploaded avatar nobody else uses once its owner is gone. */
  avatars: { changed(userId: string, previous: string | null, current: string | null): Promise<void> };
  notifier: Pick<Notifier, 'revokeSessions'>;
  logger: Logger;
}

export interface SeedOptions {
  prefix: string;
  count: number;
  start: number;
  befriend: LoadtestBefriend;
}

// Telling every process that the removed accounts are gone: this many at a time.
const FORGET_BATCH = 50;

export class LoadtestService {
  constructor(readonly deps: LoadtestDeps) {}

  /** Creates or reuses `${prefix}${start + i}` for i < count, befriends them, and opens a session each. */
  async seed({ prefix, count, start, befriend }: SeedOptions): Promise<SeedAccount[]> {
    const { db, accounts, friendships, sessions } = this.deps;
    const wanted = Array.from({ length: count }, (_, i) => ({
      username: `${prefix}${start + i}`,
      displayName: `LT ${String(start + i).padStart(4, '0')}`,
    }));
    const seeded = await db.transaction(async (trx) => {
      await accounts.createMissing(wanted, trx);
      const byName = new Map(
        (
          await accounts.byUsernames(
            wanted.map((w) => w.username),
            trx,
          )
        ).map((row) => [row.username.toLowerCase(), row]),
      );
      const rows = wanted.map(({ username }) => {
        const row = byName.get(username);
        // Taken by a person (their username, or the address a test account would get): theirs stays.
        if (!row?.is_loadtest) {
          throw new AppError(
            'USERNAME_TAKEN',
            'prefix',
            `Username ${username} belongs to a real account: choose another prefix`,
          );
        }
        return row;
      });
      await friendships.befriendPairs(
        pairsOf(
          rows.map((row) => row.id),
          befriend,
        ),
        trx,
      );
      const tokens = await sessions.issueMany(
        rows.map((row) => row.id),
        trx,
      );
      return rows.map((row, i) => ({
        id: row.id,
        username: row.username,
        displayName: row.display_name ?? row.username,
        token: tokens[i] as string,
      }));
    });
    this.deps.logger.info('load-test accounts seeded', { prefix, start, count, befriend });
    return seeded;
  }

  /**
   * Removes every test account whose username starts with `prefix`: the rooms they administer
   * first (closed on their media servers), then the accounts, then their open sockets.
   */
  async cleanup(prefix: string): Promise<number> {
    const { accounts, rooms, logger } = this.deps;
    const found = await accounts.withPrefix(prefix);
    const ids = found.map((row) => row.id);
    for (const room of await accounts.roomsAdministeredBy(ids)) {
      // A room that fails to close here still goes with its admin below (ON DELETE CASCADE).
      await rooms.delete(room.admin_id, room.id).catch((error: unknown) => {
        logger.warn('load-test cleanup: room not closed', { roomId: room.id, error });
      });
    }
    const removed = await accounts.deleteTestAccounts(ids);
    for (let i = 0; i < found.length; i += FORGET_BATCH) {
      await Promise.all(found.slice(i, i + FORGET_BATCH).map((row) => this.#forget(row)));
    }
    logger.info('load-test accounts removed', { prefix, removed });
    return removed;
  }

  /** No process trusts a cached session of the removed account, its sockets close, its avatar goes. */
  async #forget({ id, avatar_url }: { id: string; avatar_url: string | null }): Promise<void> {
    const { sessions, notifier, avatars, logger } = this.deps;
    const told = await Promise.allSettled([
      sessions.userChanged(id),
      notifier.revokeSessions(id, null),
      avatars.changed(id, avatar_url, null),
    ]);
    for (const result of told) {
      if (result.status === 'rejected')
        logger.error('load-test cleanup: telling others failed', { userId: id, error: result.reason });
    }
  }
}

/** The friendships `befriend` asks for among `ids` (in seeding order). */
export function pairsOf(ids: readonly string[], befriend: LoadtestBefriend): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (befriend === 'pairs') {
    for (let i = 0; i + 1 < ids.length; i += 2) pairs.push([ids[i] as string, ids[i + 1] as string]);
  } else if (befriend === 'all') {
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) pairs.push([ids[i] as string, ids[j] as string]);
    }
  }
  return pairs;
}
