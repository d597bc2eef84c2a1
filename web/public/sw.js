/**
 * The service worker (spec sections 4 and 7): shows what a web push carries (a PushPayload of
 * @voice/protocol), and turns a click on a notification or its dismissal into one of the
 * NotificationWorkerMessages the app carries out.
 *
 * Plain JavaScript served as is from /sw.js rather than built by Vite: a service worker needs
 * a fixed URL at the root of its scope, and a module one (the only way to import the protocol
 * package) is not supported by every browser that has web push. The two constants below
 * mirror protocol's NOTIFICATIONS; sw.test.ts fails when they drift apart.
 *
 * The work is done in top-level functions that the listeners pass to `waitUntil`: a browser
 * test calls them directly, since a synthetic event cannot be kept alive with `waitUntil`.
 */

/** NOTIFICATIONS.autoCloseMs: how long a notification stays where requireInteraction is ignored. */
const AUTO_CLOSE_MS = 15000;
/** NOTIFICATIONS.callVibration. */
const CALL_VIBRATION = [200, 100, 200, 100, 200];
/** Where a click opens the app when no window of it is open. */
const APP_PATH = '/dashboard';

/** Browsers without requireInteraction (Safari) leave notifications up: those are closed by us. */
const honoursRequireInteraction =
  typeof Notification !== 'undefined' && 'requireInteraction' in Notification.prototype;

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  const payload = readPayload(event.data);
  if (payload) event.waitUntil(showPush(payload));
});

self.addEventListener('notificationclick', (event) => {
  event.waitUntil(onNotificationClick(event.notification, event.action));
});

self.addEventListener('notificationclose', (event) => {
  event.waitUntil(onNotificationClose(event.notification));
});

/** The push's JSON, or null when it is not a payload with a type and a tag. */
function readPayload(data) {
  try {
    const payload = data?.json();
    return payload && typeof payload.type === 'string' && typeof payload.tag === 'string' ? payload : null;
  } catch {
    return null;
  }
}

/** Shows a push's notification, or closes the notifications of a `withdraw` push's tag. */
async function showPush(payload) {
  const existing = await self.registration.getNotifications({ tag: payload.tag });
  if (payload.type === 'withdraw') {
    for (const notification of existing) notification.close();
    return;
  }
  const options = {
    body: payload.body,
    tag: payload.tag,
    // A replaced notification (the same call ringing again) alerts the person again.
    renotify: existing.length > 0,
    requireInteraction: true,
    data: dataOf(payload),
    actions: actionsOf(payload),
  };
  if (payload.icon) options.icon = payload.icon;
  if (payload.type === 'incoming-call') options.vibrate = CALL_VIBRATION;
  await self.registration.showNotification(payload.title, options);
  if (!honoursRequireInteraction) await closeLater(payload.tag);
}

/** The notification's buttons, labelled in the recipient's language by the server. */
function actionsOf(payload) {
  switch (payload.type) {
    case 'incoming-call':
      return [
        { action: 'accept', title: payload.actions.accept },
        { action: 'reject', title: payload.actions.reject },
      ];
    case 'friend-request':
      return [{ action: 'accept', title: payload.actions.accept }];
    case 'room-invitation':
      return [{ action: 'join', title: payload.actions.join }];
    default:
      return [];
  }
}

/** What a click needs to know later, kept on the notification. */
function dataOf(payload) {
  switch (payload.type) {
    case 'incoming-call':
      return { type: payload.type, callId: payload.callId };
    case 'friend-request':
      return { type: payload.type, userId: payload.userId };
    case 'room-invitation':
      return { type: payload.type, roomId: payload.roomId, invitationId: payload.invitationId };
    default:
      return { type: payload.type };
  }
}

/** Closes the notification of `tag` after AUTO_CLOSE_MS, if it is still the one shown. */
async function closeLater(tag) {
  await new Promise((resolve) => setTimeout(resolve, AUTO_CLOSE_MS));
  for (const notification of await self.registration.getNotifications({ tag })) notification.close();
}

/** The app message of a click on `action` ('' is the notification's body: just open the app). */
function messageOf(data, action) {
  if (data?.type === 'incoming-call' && action === 'accept')
    return { type: 'accept-call', callId: data.callId };
  if (data?.type === 'incoming-call' && action === 'reject')
    return { type: 'reject-call', callId: data.callId };
  if (data?.type === 'friend-request' && action === 'accept') {
    return { type: 'accept-friend-request', userId: data.userId };
  }
  if (data?.type === 'room-invitation' && action === 'join') {
    return { type: 'join-room', roomId: data.roomId, invitationId: data.invitationId };
  }
  return null;
}

/** Focuses a window of the app (or opens one) and hands it what was clicked. */
async function onNotificationClick(notification, action) {
  notification.close();
  const message = messageOf(notification.data, action);
  const client = await appWindow();
  if (client) {
    await client.focus().catch(() => {});
    if (message) client.postMessage(message);
    return;
  }
  // A new page cannot receive a message before its app listens: it reads it from its address.
  const query = message ? `?notification=${encodeURIComponent(JSON.stringify(message))}` : '';
  await self.clients.openWindow(`${APP_PATH}${query}`);
}

/** A dismissed call notification rejects the call if it still rings (the app decides). */
async function onNotificationClose(notification) {
  const data = notification.data;
  if (data?.type !== 'incoming-call') return;
  const client = await appWindow();
  client?.postMessage({ type: 'call-dismissed', callId: data.callId });
}

/** The focused window of the app, else any. */
async function appWindow() {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  return windows.find((client) => client.focused) ?? windows[0] ?? null;
}
