/** Web push subscriptions and the test notification (SPEC section 7, /notifications/*). */
import { NOTIFICATION_ROUTES, type PushSubscriptionJson, type VapidPublicKeyResponse } from '@voice/protocol';
import { apiRequest } from './client.ts';

export const notificationsApi = {
  vapidPublicKey: () => apiRequest<VapidPublicKeyResponse>(NOTIFICATION_ROUTES.vapidPublicKey),
  subscribe: (subscription: PushSubscriptionJson, isSafari: boolean) =>
    apiRequest<{ success: true }>(NOTIFICATION_ROUTES.subscribe, {
      method: 'POST',
      body: { subscription, isSafari },
    }),
  unsubscribe: (endpoint: string) =>
    apiRequest<void>(NOTIFICATION_ROUTES.subscribe, { method: 'DELETE', body: { endpoint } }),
  /** A test notification to every browser of the signed-in person. */
  test: () => apiRequest<{ success: true }>(NOTIFICATION_ROUTES.test, { method: 'POST' }),
};
