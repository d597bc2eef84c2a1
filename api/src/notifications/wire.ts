/** Web push (/api/notifications, the shown tabs) and the notifier every feature tells its events to. */

import type { Middleware } from 'koa';
import type { AuthState } from '../http/requireAuth.ts';
import type { UserRepository } from '../users/UserRepository.ts';
import type { Base } from '../wiring.ts';
import { PushNotifier } from './PushNotifier.ts';
import { notificationRoutes } from './routes.ts';
import { notificationSocketHandlers } from './socketHandlers.ts';
import { WebPush } from './WebPush.ts';

export function wireNotifications(
  { config, db, stores, limiter, metrics, logger }: Base,
  { users, requireAuth }: { users: UserRepository; requireAuth: Middleware<AuthState> },
) {
  const webPush = new WebPush({
    config,
    db,
    users,
    logger,
    onPushOutcome: (outcome) => metrics.pushSent(outcome),
  });
  const routes = notificationRoutes({
    publicKey: webPush.publicKey,
    endpoints: webPush.endpoints,
    subscriptions: webPush.subscriptions,
    pushes: webPush.notifications,
    limiter,
    requireAuth,
  });
  return {
    // Its events that a person must hear with no tab shown also go out as web pushes.
    notifier: new PushNotifier(stores.bus, webPush.notifications),
    routes: [routes.routes()],
    socketHandlers: notificationSocketHandlers(webPush.visibleTabs),
    socketLifecycle: [webPush.visibleTabs],
    close: () => webPush.close(),
  };
}
