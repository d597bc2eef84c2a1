/** The web push parts of one API process, built together and closed together. */
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { UserRepository } from '../users/UserRepository.ts';
import { PushEndpoints } from './PushEndpoints.ts';
import { PushNotifications } from './PushNotifications.ts';
import { type PushOutcome, PushSender } from './PushSender.ts';
import { PushSubscriptions } from './PushSubscriptions.ts';
import { VisibleTabs } from './VisibleTabs.ts';

export class WebPush {
  readonly publicKey: string;
  readonly endpoints: PushEndpoints;
  readonly subscriptions: PushSubscriptions;
  /** This process's shown tabs (`set-visibility`). */
  readonly visibleTabs = new VisibleTabs();
  readonly sender: PushSender;
  /** What is pushed when. */
  readonly notifications: PushNotifications;

  constructor(deps: {
    config: Readonly<Config>;
    db: Db;
    users: UserRepository;
    logger: Logger;
    /** Told how each push ended (metrics). */
    onPushOutcome?: (outcome: PushOutcome) => void;
  }) {
    const { config, db, users, logger, onPushOutcome } = deps;
    this.publicKey = config.vapid.publicKey;
    this.endpoints = new PushEndpoints(config.pushAllowedHosts);
    this.subscriptions = new PushSubscriptions(db);
    this.sender = new PushSender({
      vapid: config.vapid,
      endpoints: this.endpoints,
      subscriptions: this.subscriptions,
      logger,
      onOutcome: onPushOutcome,
    });
    this.notifications = new PushNotifications({
      subscriptions: this.subscriptions,
      sender: this.sender,
      users,
      visibleTabs: this.visibleTabs,
      logger,
      publicUrl: config.publicUrl,
      ringTimeoutMs: config.callRingTimeoutMs,
    });
  }

  /** Waits for the pushes being prepared, then stops sending. Safe to call more than once. */
  async close(): Promise<void> {
    await this.notifications.close();
    await this.sender.close();
  }
}
