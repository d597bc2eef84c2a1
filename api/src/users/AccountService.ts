/**
 * Removing an account: the person confirms with their password, the rows go (sessions,
 * reset links, friendships and requests follow by ON DELETE CASCADE), every open socket
 * of theirs closes on whichever process holds it, and the people who knew them see them
 * go from their lists at once.
 */

import type { Db } from '../db/index.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { verifyPassword } from '../passwords.ts';
import type { Notifier } from '../socket/Notifier.ts';
import type { UserRepository } from './UserRepository.ts';

export interface AccountServiceDeps {
  db: Db;
  users: UserRepository;
  /** Who knew them (friends/FriendRepository.ts): their friends and both ends of their requests. */
  friends: {
    friendIds(userId: string): Promise<string[]>;
    incomingRequests(userId: string): Promise<{ user_id: string }[]>;
    outgoingRequests(userId: string): Promise<{ user_id: string }[]>;
  };
  notifier: Notifier;
  /** Frees an uploaded avatar nobody else uses once its owner is gone. */
  avatars: { changed(userId: string, previous: string | null, current: string | null): Promise<void> };
  logger: Logger;
  /** Told first once the rows are gone, so that no process trusts a cached session of theirs. */
  onRemoved?: (userId: string) => Promise<void>;
}

export class AccountService {
  constructor(readonly deps: AccountServiceDeps) {}

  /** Deletes the account of `userId` after checking `password`. */
  async remove(userId: string, password: string): Promise<void> {
    const { db, users, friends, notifier, avatars, logger, onRemoved } = this.deps;
    const user = await users.findById(userId);
    // Removed by a request that was faster: the session that asked is gone with it.
    if (!user) throw new AppError('UNAUTHORIZED');
    if (!(await verifyPassword(password, user.password_hash)))
      throw new AppError('WRONG_PASSWORD', 'password');

    // Who must hear of it, read before the rows cascade away.
    const [friendIds, incoming, outgoing] = await Promise.all([
      friends.friendIds(userId),
      friends.incomingRequests(userId),
      friends.outgoingRequests(userId),
    ]);
    const deleted = await db('users').where({ id: userId }).delete();
    if (deleted === 0) throw new AppError('UNAUTHORIZED');

    // The account is gone; what follows only tells others, and a failure there is logged.
    await onRemoved?.(userId).catch((error: unknown) =>
      logger.error('account removal: forgetting its sessions failed', { userId, error }),
    );
    const told = await Promise.allSettled([
      notifier.revokeSessions(userId, null),
      notifier.notifyMany(friendIds, 'friend-removed', { userId }),
      // To a sender, `userId` in friend-request-rejected is the person who turned them down.
      notifier.notifyMany(
        incoming.map((r) => r.user_id),
        'friend-request-rejected',
        { userId },
      ),
      // To a recipient, `userId` in friend-request-cancelled is the sender who withdrew.
      notifier.notifyMany(
        outgoing.map((r) => r.user_id),
        'friend-request-cancelled',
        { userId },
      ),
      avatars.changed(userId, user.avatar_url, null),
    ]);
    for (const result of told) {
      if (result.status === 'rejected')
        logger.error('account removal: telling others failed', { userId, error: result.reason });
    }
    logger.info('account removed', { userId });
  }
}
