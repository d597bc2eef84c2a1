/**
 * This browser's web push subscription: the service worker's registration, subscribing with
 * the API's VAPID key and handing the subscription to the API, and letting it go again (the
 * settings switch, logout). A person who switched push off here stays unsubscribed at later
 * logins (a local flag).
 */
import type { PushSubscriptionJson } from '@voice/protocol';
import { notificationsApi } from '../api/notifications.ts';
import { isSafariUserAgent } from '../media/microphoneErrors.ts';
import { pushSupported, readFlag, writeFlag } from './browserSupport.ts';

/** The service worker's address; its scope is the whole app. */
export const SERVICE_WORKER_URL = '/sw.js';
/** Local storage: "off" when the person switched push off on this browser. */
const PUSH_SETTING_KEY = 'pushNotifications';

export function pushSwitchedOff(): boolean {
  return readFlag(PUSH_SETTING_KEY) === 'off';
}

export function setPushSwitchedOff(off: boolean): void {
  writeFlag(PUSH_SETTING_KEY, off ? 'off' : null);
}

/** Registers the service worker; null where the browser has none. */
export async function registerServiceWorker(): Promise<ServiceWorkerRegistration | null> {
  if (!('serviceWorker' in navigator)) return null;
  return navigator.serviceWorker.register(SERVICE_WORKER_URL);
}

/** The active registration, once the worker is running; null without web push. */
export async function activeRegistration(): Promise<ServiceWorkerRegistration | null> {
  if (!pushSupported() || !('serviceWorker' in navigator)) return null;
  return navigator.serviceWorker.ready;
}

/** This browser's subscription, if it has one. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!('serviceWorker' in navigator)) return null;
  const registration = await navigator.serviceWorker.getRegistration();
  return (await registration?.pushManager?.getSubscription()) ?? null;
}

/** The bytes of a base64url string (the VAPID key as the API gives it). */
export function base64UrlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const base64 = value
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(value.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Subscribes with the API's key and sends the subscription to the API. A subscription made
 * with another key (the server's keys changed) is replaced.
 */
export async function subscribePush(registration: ServiceWorkerRegistration): Promise<void> {
  const { publicKey } = await notificationsApi.vapidPublicKey();
  const key = base64UrlToBytes(publicKey);
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !sameKey(subscription.options.applicationServerKey, key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: key,
  });
  await notificationsApi.subscribe(subscriptionJson(subscription), isSafariUserAgent(navigator.userAgent));
}

/** Removes this browser's subscription from the API and from the browser. */
export async function unsubscribePush(): Promise<void> {
  const subscription = await currentSubscription();
  if (!subscription) return;
  try {
    await notificationsApi.unsubscribe(subscription.endpoint);
  } finally {
    await subscription.unsubscribe();
  }
}

function sameKey(current: ArrayBuffer | null, wanted: Uint8Array): boolean {
  if (!current || current.byteLength !== wanted.length) return false;
  const bytes = new Uint8Array(current);
  return bytes.every((byte, i) => byte === wanted[i]);
}

function subscriptionJson(subscription: PushSubscription): PushSubscriptionJson {
  const json = subscription.toJSON();
  const p256dh = json.keys?.p256dh;
  const auth = json.keys?.auth;
  if (!json.endpoint || !p256dh || !auth) throw new Error('The push subscription has no keys');
  return { endpoint: json.endpoint, expirationTime: json.expirationTime ?? null, keys: { p256dh, auth } };
}
