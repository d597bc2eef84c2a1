/**
 * Notifications above every page (spec sections 2, 4 and 9): registers the service worker;
 * after login sets up permission and push with the spec's delays (setup.ts), or shows the
 * permission prompt on mobile and Safari browsers instead of asking unprompted; offers the
 * settings their state and switch. What the worker posts is carried out above it, where calls,
 * friends and rooms meet (app/NotificationActions).
 */
import { type ReactNode, useCallback, useEffect, useMemo, useState } from 'react';
import { notificationsApi } from '../../api/notifications.ts';
import {
  markPromptShown,
  notificationPermission,
  promptEnvironment,
  pushSupported,
  shouldShowPermissionPrompt,
} from '../../notifications/browserSupport.ts';
import {
  activeRegistration,
  pushSwitchedOff,
  registerServiceWorker,
  setPushSwitchedOff,
  subscribePush,
  unsubscribePush,
} from '../../notifications/push.ts';
import { setUpNotifications } from '../../notifications/setup.ts';
import { useSession } from '../../session/useSession.ts';
import { NotificationPrompt } from './NotificationPrompt.tsx';
import { NotificationsContext, type NotificationsViewModel } from './useNotifications.ts';

export function NotificationsProvider({ children }: { children: ReactNode }) {
  const { status } = useSession();
  const signedIn = status === 'authenticated';
  const [permission, setPermission] = useState(notificationPermission);
  const [subscribed, setSubscribed] = useState(false);
  const [prompting, setPrompting] = useState(false);

  useEffect(() => {
    registerServiceWorker().catch((error: unknown) =>
      console.warn('The service worker could not be registered', error),
    );
  }, []);

  useEffect(() => {
    if (!signedIn) {
      setSubscribed(false);
      setPrompting(false);
      return;
    }
    const controller = new AbortController();
    const steps = {
      ready: activeRegistration,
      permission: async () => {
        if (shouldShowPermissionPrompt(promptEnvironment())) {
          markPromptShown();
          setPrompting(true);
          return notificationPermission();
        }
        const current = notificationPermission();
        return current === 'default' ? Notification.requestPermission() : current;
      },
      subscribe: async (registration: ServiceWorkerRegistration) => {
        if (pushSwitchedOff()) return;
        await subscribePush(registration);
        if (!controller.signal.aborted) setSubscribed(true);
      },
    };
    setUpNotifications(steps, controller.signal).then(
      (outcome) => {
        setPermission(notificationPermission());
        if (outcome === 'timed-out') console.info('Notification setup timed out');
      },
      (error: unknown) => console.info('Push notifications could not be set up', error),
    );
    return () => controller.abort();
  }, [signedIn]);

  /** Permission asked for by the person (a click): push follows when it is granted. */
  const enable = useCallback(async () => {
    const granted = (await Notification.requestPermission()) === 'granted';
    setPermission(notificationPermission());
    if (!granted) throw new Error('Notification permission was not granted');
    setPushSwitchedOff(false);
    const registration = await activeRegistration();
    if (!registration) return;
    await subscribePush(registration);
    setSubscribed(true);
  }, []);

  const value = useMemo<NotificationsViewModel>(
    () => ({
      pushSupported: pushSupported(),
      permission,
      subscribed,
      setPushEnabled: async (enabled) => {
        if (enabled) return enable();
        setPushSwitchedOff(true);
        setSubscribed(false);
        await unsubscribePush();
      },
      sendTest: async () => {
        await notificationsApi.test();
      },
    }),
    [permission, subscribed, enable],
  );

  return (
    <NotificationsContext.Provider value={value}>
      {children}
      {signedIn && prompting && (
        <NotificationPrompt
          onEnable={enable}
          onClose={() => {
            setPermission(notificationPermission());
            setPrompting(false);
          }}
        />
      )}
    </NotificationsContext.Provider>
  );
}
