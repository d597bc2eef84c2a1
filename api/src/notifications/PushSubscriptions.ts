/** Reads and writes `push_subscriptions` rows; the only module that knows the table. */
import type { Db } from '../db/index.ts';

/** A stored subscription: where to push and the browser's keys to encrypt for. */
export interface PushSubscriptionRow {
  endpoint: string;
  user_id: string;
  p256dh: string;
  auth: string;
  is_safari: boolean;
  created_at: Date;
}

// A person signs in on a few browsers; past this, their oldest subscriptions go.
const SUBSCRIPTIONS_PER_USER_MAX = 20;

export class PushSubscriptions {
  constructor(readonly db: Db) {}

  /**
   * Stores the browser's subscription for `userId`: the same endpoint again replaces it
   * (new keys, or another person now signed in on that browser).
   */
  async save(userId: string, sub: { endpoint: string; p256dh: string; auth: string; isSafari: boolean }) {
    await this.db.transaction(async (trx) => {
      await trx('push_subscriptions')
        .insert({
          endpoint: sub.endpoint,
          user_id: userId,
          p256dh: sub.p256dh,
          auth: sub.auth,
          is_safari: sub.isSafari,
          created_at: trx.fn.now(),
        })
        .onConflict('endpoint')
        .merge();
      const beyond = trx('push_subscriptions')
        .where({ user_id: userId })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'endpoint', order: 'desc' },
        ])
        .offset(SUBSCRIPTIONS_PER_USER_MAX)
        .select('endpoint');
      await trx('push_subscriptions').whereIn('endpoint', beyond).delete();
    });
  }

  /** Forgets `userId`'s subscription at `endpoint`; false when they had none there. */
  async remove(userId: string, endpoint: string): Promise<boolean> {
    return (await this.db('push_subscriptions').where({ user_id: userId, endpoint }).delete()) > 0;
  }

  /** Forgets a subscription its push service says is gone (404/410). */
  async expire(endpoint: string): Promise<void> {
    await this.db('push_subscriptions').where({ endpoint }).delete();
  }

  listFor(userId: string): Promise<PushSubscriptionRow[]> {
    return this.db<PushSubscriptionRow>('push_subscriptions').where({ user_id: userId });
  }
}
