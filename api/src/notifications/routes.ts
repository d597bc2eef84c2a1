/** /api/notifications: the VAPID public key, this browser's push subscription, a test push. */
import Router from '@koa/router';
import { NOTIFICATION_ROUTES, type VapidPublicKeyResponse } from '@voice/protocol';
import type { Middleware } from 'koa';
import { type Limit, perUserLimit, type RateLimiter } from '../http/RateLimiter.ts';
import type { AuthState } from '../http/requireAuth.ts';
import { validate } from '../http/validate.ts';
import type { PushEndpoints } from './PushEndpoints.ts';
import type { PushNotifications } from './PushNotifications.ts';
import type { PushSubscriptions } from './PushSubscriptions.ts';
import { subscribeSchema, unsubscribeSchema } from './schema.ts';

const MINUTE = 60_000;
// A page subscribes after each sign-in and when the setting is switched; each subscribe resolves a host.
const SUBSCRIBE_LIMIT: Limit = { name: 'push-subscribe-user', max: 30, windowMs: 10 * MINUTE };
// Each test push is a request to every browser's push service.
const TEST_LIMIT: Limit = { name: 'push-test-user', max: 10, windowMs: 10 * MINUTE };

export interface NotificationRoutesDeps {
  publicKey: string;
  endpoints: PushEndpoints;
  subscriptions: PushSubscriptions;
  pushes: PushNotifications;
  limiter: RateLimiter;
  requireAuth: Middleware<AuthState>;
}

export function notificationRoutes(deps: NotificationRoutesDeps) {
  const { endpoints, subscriptions, pushes, limiter, requireAuth } = deps;
  const router = new Router<AuthState>();

  router.get(NOTIFICATION_ROUTES.vapidPublicKey, (ctx) => {
    ctx.body = { success: true, publicKey: deps.publicKey } satisfies VapidPublicKeyResponse;
  });

  router.post(
    NOTIFICATION_ROUTES.subscribe,
    requireAuth,
    perUserLimit(limiter, SUBSCRIBE_LIMIT),
    async (ctx) => {
      const { subscription, isSafari } = validate(subscribeSchema, ctx.request.body);
      await endpoints.check(subscription.endpoint);
      await subscriptions.save(ctx.state.user.id, {
        endpoint: subscription.endpoint,
        p256dh: subscription.keys.p256dh,
        auth: subscription.keys.auth,
        isSafari,
      });
      ctx.status = 201;
      ctx.body = { success: true };
    },
  );

  // The web calls this before signing out, so the browser gets no more of this person's pushes.
  router.delete(NOTIFICATION_ROUTES.subscribe, requireAuth, async (ctx) => {
    const { endpoint } = validate(unsubscribeSchema, ctx.request.body);
    await subscriptions.remove(ctx.state.user.id, endpoint);
    ctx.status = 204;
  });

  router.post(NOTIFICATION_ROUTES.test, requireAuth, perUserLimit(limiter, TEST_LIMIT), async (ctx) => {
    await pushes.test(ctx.state.user.id);
    ctx.status = 202;
    ctx.body = { success: true };
  });

  return router;
}
