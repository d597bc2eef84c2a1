/**
 * Notifications (spec sections 1, 2, 3, 4, 7, 9): web push subscriptions, what a push
 * carries to the service worker, and the messages the service worker posts to the app.
 */

/** REST paths (under /api). */
export const NOTIFICATION_ROUTES = {
  /** GET → VapidPublicKeyResponse (no token needed). */
  vapidPublicKey: '/notifications/vapid-public-key',
  /** POST SubscribeBody → 201 {success: true}; DELETE UnsubscribeBody → 204. Bearer token. */
  subscribe: '/notifications/subscribe',
  /** POST → 202 {success: true}: a test notification to this person's browsers. Bearer token. */
  test: '/notifications/test',
} as const;

export interface VapidPublicKeyResponse {
  success: true;
  /** The application server key (base64url, uncompressed P-256 point). */
  publicKey: string;
}

/** A browser's PushSubscription as `toJSON()` gives it. */
export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

export interface SubscribeBody {
  subscription: PushSubscriptionJson;
  isSafari: boolean;
}

export interface UnsubscribeBody {
  endpoint: string;
}

/**
 * What a push carries (JSON, encrypted aes128gcm) to the service worker. `tag` groups the
 * notifications of one thing (a call, a request): a newer one replaces the older, and a
 * `withdraw` push closes it.
 */
export type PushPayload =
  | {
      type: 'incoming-call';
      tag: string;
      callId: string;
      title: string;
      body: string;
      icon: string | null;
      /** Labels of the actions, in the recipient's language. */
      actions: { accept: string; reject: string };
      caller: { id: string; username: string; display_name: string | null; avatar_url: string | null };
    }
  | {
      type: 'friend-request';
      tag: string;
      userId: string;
      title: string;
      body: string;
      icon: string | null;
      actions: { accept: string };
    }
  | {
      type: 'room-invitation';
      tag: string;
      invitationId: string;
      roomId: string;
      title: string;
      body: string;
      icon: string | null;
      actions: { join: string };
    }
  | { type: 'test'; tag: string; title: string; body: string; icon: string | null }
  /** Close the notification with this tag (a call answered elsewhere, cancelled, timed out). */
  | { type: 'withdraw'; tag: string };

/** The tag of a call's notification. */
export const callNotificationTag = (callId: string) => `call:${callId}`;

/** Messages the service worker posts to the app's pages (spec section 7). */
export type NotificationWorkerMessage =
  | { type: 'accept-call'; callId: string }
  | { type: 'reject-call'; callId: string }
  | { type: 'call-dismissed'; callId: string }
  | { type: 'accept-friend-request'; userId: string }
  | { type: 'join-room'; roomId: string; invitationId?: string };

/** Web push delivery: attempts per push, and the first retry's delay (doubling). */
export const PUSH_DELIVERY = { attempts: 4, firstRetryMs: 1000, timeoutMs: 10_000, ttlSeconds: 60 } as const;

/** The local storage flag that records the notification-permission prompt was shown. */
export const NOTIFICATION_PROMPT_SHOWN_KEY = 'notificationPromptShown';

/** The local storage flag of the sounds setting ("off" turns sounds off). */
export const SOUNDS_SETTING_KEY = 'sounds';
