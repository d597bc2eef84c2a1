/**
 * Notification setup after login (spec section 4 "Notification setup", section 9): the service
 * worker and the permission after NOTIFICATIONS.initDelayMs, then the push subscription after
 * NOTIFICATIONS.pushDelayMs; each step that waits on the browser or the API gives up after
 * NOTIFICATIONS.setupTimeoutMs. Asking for permission is the person's time, not ours: it is
 * not cut short. The steps are injected, so the timing is tested with fake timers.
 */
import { NOTIFICATIONS } from '@voice/protocol';

export interface SetupSteps<R> {
  /** The active service worker registration, or null where push is unsupported. */
  ready(): Promise<R | null>;
  /** The notification permission, asking for it where that may happen unprompted. */
  permission(): Promise<NotificationPermission | null>;
  /** Subscribes this browser to push and sends the subscription to the API. */
  subscribe(registration: R): Promise<void>;
}

/** How the setup ended. */
export type SetupOutcome = 'subscribed' | 'unsupported' | 'no-permission' | 'timed-out' | 'cancelled';

const TIMED_OUT = Symbol('timed out');

export async function setUpNotifications<R>(
  steps: SetupSteps<R>,
  signal: AbortSignal,
): Promise<SetupOutcome> {
  if (!(await pause(NOTIFICATIONS.initDelayMs, signal))) return 'cancelled';
  const registration = await bounded(steps.ready(), signal);
  if (registration === TIMED_OUT) return signal.aborted ? 'cancelled' : 'timed-out';
  if (registration === null) return 'unsupported';
  const permission = await steps.permission();
  if (signal.aborted) return 'cancelled';
  if (permission !== 'granted') return 'no-permission';
  if (!(await pause(NOTIFICATIONS.pushDelayMs, signal))) return 'cancelled';
  const subscribed = await bounded(steps.subscribe(registration), signal);
  if (subscribed === TIMED_OUT) return signal.aborted ? 'cancelled' : 'timed-out';
  return 'subscribed';
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort);
  });
}

/** `work`'s value, or TIMED_OUT after setupTimeoutMs or on abort; its failure is passed on. */
async function bounded<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof TIMED_OUT> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener('abort', onAbort);
  try {
    const timeout = pause(NOTIFICATIONS.setupTimeoutMs, controller.signal).then(
      (): typeof TIMED_OUT => TIMED_OUT,
    );
    return await Promise.race([work, timeout]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    controller.abort();
  }
}
