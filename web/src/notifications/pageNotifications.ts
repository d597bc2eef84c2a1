/**
 * Notifications shown by the page itself (spec section 4): while the tab is hidden and this
 * browser has no push subscription, an incoming call, a friend request or a room invitation
 * still shows one. Through the service worker's registration where there is one (Android
 * allows no other way, and a click then goes through the worker like a push's), else with
 * the Notification constructor. Also closes a tag's notifications, e.g. a call's once it
 * stops ringing, whichever way they were shown.
 */
import { notificationPermission } from './browserSupport.ts';

/** What a page notification shows; `data` is what the worker reads on a click (as a push's). */
export interface PageNotification {
  tag: string;
  title: string;
  body: string;
  icon: string | null;
  data: { type: string } & Record<string, string>;
}

const shown = new Map<string, Notification>();

export async function showPageNotification(notification: PageNotification): Promise<void> {
  if (notificationPermission() !== 'granted') return;
  const { title, ...rest } = notification;
  const options: NotificationOptions = { body: rest.body, tag: rest.tag, data: rest.data };
  if (rest.icon) options.icon = rest.icon;
  const registration = await navigator.serviceWorker?.getRegistration();
  if (registration?.active) {
    await registration.showNotification(title, options);
    return;
  }
  const page = new Notification(title, options);
  page.onclick = () => {
    window.focus();
    page.close();
  };
  page.onclose = () => {
    if (shown.get(rest.tag) === page) shown.delete(rest.tag);
  };
  shown.set(rest.tag, page);
}

/** Closes the notifications of `tag`, shown by the page or by the worker. */
export function closeNotifications(tag: string): void {
  shown.get(tag)?.close();
  shown.delete(tag);
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker
    .getRegistration()
    .then(async (registration) => {
      for (const notification of (await registration?.getNotifications({ tag })) ?? []) notification.close();
    })
    .catch((error: unknown) => console.debug(`Could not close the notifications of ${tag}`, error));
}
