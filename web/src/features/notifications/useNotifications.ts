/** React access to this browser's notification setup (NotificationsProvider). */
import { createContext, useContext } from 'react';

export interface NotificationsViewModel {
  /** Web push (a service worker with PushManager, or Safari's push API) is available. */
  pushSupported: boolean;
  /** Notification.permission; null where the browser has no notifications. */
  permission: NotificationPermission | null;
  /** This browser has a push subscription for the signed-in person. */
  subscribed: boolean;
  /** Turns push on (asking for permission) or off on this browser; rejects when that failed. */
  setPushEnabled(enabled: boolean): Promise<void>;
  /** Asks the API for a test notification to the person's browsers. */
  sendTest(): Promise<void>;
}

export const NotificationsContext = createContext<NotificationsViewModel | null>(null);

export function useNotifications(): NotificationsViewModel {
  const value = useContext(NotificationsContext);
  if (!value) throw new Error('useNotifications must be used within a NotificationsProvider');
  return value;
}
