/**
 * What this browser can do with notifications (spec sections 2 and 9): push through a service
 * worker and PushManager, or Safari's own push API; which browser's unblocking guidance
 * applies; and whether the notification-permission prompt is due.
 */
import { NOTIFICATION_PROMPT_SHOWN_KEY } from '@voice/protocol';
import { isSafariUserAgent } from '../media/microphoneErrors.ts';

/** The browsers that have their own guidance text for unblocking notifications. */
export type BrowserFamily = 'safari' | 'chrome' | 'firefox' | 'other';

/** What the prompt decision reads from the browser. */
export interface PromptEnvironment {
  userAgent: string;
  /** navigator.userAgentData.mobile where the browser has it. */
  mobileHint: boolean | undefined;
  /** Notification.permission, or null where the Notification API is missing. */
  permission: NotificationPermission | null;
  /** The stored flag: the prompt was shown once already. */
  promptShown: boolean;
}

/** Whose guidance text applies to this user agent. */
export function browserFamily(userAgent: string): BrowserFamily {
  if (isSafariUserAgent(userAgent)) return 'safari';
  if (/firefox|fxios/i.test(userAgent)) return 'firefox';
  if (/chrome|chromium|crios/i.test(userAgent) && !/edg|opr\//i.test(userAgent)) return 'chrome';
  return 'other';
}

/** A phone or tablet, by the client hint or else by the user agent's words. */
export function isMobile(userAgent: string, mobileHint: boolean | undefined): boolean {
  return mobileHint === true || /android|iphone|ipad|ipod|mobile/i.test(userAgent);
}

/**
 * The notification-permission prompt is shown after login only on a mobile or Safari browser,
 * while permission is not granted and the prompt was never shown.
 */
export function shouldShowPermissionPrompt(env: PromptEnvironment): boolean {
  if (env.permission === null || env.permission === 'granted' || env.promptShown) return false;
  return isMobile(env.userAgent, env.mobileHint) || isSafariUserAgent(env.userAgent);
}

/** Safari's own push API (window.safari.pushNotification), where it exists. */
function hasSafariPush(): boolean {
  const safari = (window as { safari?: { pushNotification?: unknown } }).safari;
  return safari?.pushNotification !== undefined;
}

/** Web push through a service worker, or Safari's push API. */
export function pushSupported(): boolean {
  return ('serviceWorker' in navigator && 'PushManager' in window) || hasSafariPush();
}

/** Notification.permission, or null where the browser has no Notification API. */
export function notificationPermission(): NotificationPermission | null {
  return typeof Notification === 'undefined' ? null : Notification.permission;
}

/** The prompt environment of this browser now. */
export function promptEnvironment(): PromptEnvironment {
  const data = (navigator as { userAgentData?: { mobile?: boolean } }).userAgentData;
  return {
    userAgent: navigator.userAgent,
    mobileHint: data?.mobile,
    permission: notificationPermission(),
    promptShown: readFlag(NOTIFICATION_PROMPT_SHOWN_KEY) !== null,
  };
}

/** Records that the prompt was shown, so it never comes back. */
export function markPromptShown(): void {
  writeFlag(NOTIFICATION_PROMPT_SHOWN_KEY, 'true');
}

/** A local storage value; unreadable storage (some privacy modes) holds none. */
export function readFlag(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Stores (or with null removes) a local storage value; a refusing storage is ignored. */
export function writeFlag(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch (error) {
    console.debug(`Could not store ${key}`, error);
  }
}
