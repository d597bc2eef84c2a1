import { NOTIFICATIONS } from '@voice/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type SetupOutcome, type SetupSteps, setUpNotifications } from './setup.ts';

const REGISTRATION = { scope: '/' };

/** Steps that record when each ran (in fake time) and answer as told. */
function recordingSteps(overrides: Partial<SetupSteps<typeof REGISTRATION>> = {}) {
  const calls: [string, number][] = [];
  const start = Date.now();
  const at = (name: string) => calls.push([name, Date.now() - start]);
  const steps: SetupSteps<typeof REGISTRATION> = {
    ready: async () => {
      at('ready');
      return REGISTRATION;
    },
    permission: async () => {
      at('permission');
      return 'granted';
    },
    subscribe: async (registration) => {
      at(`subscribe ${registration.scope}`);
    },
    ...overrides,
  };
  return { steps, calls };
}

function run(steps: SetupSteps<typeof REGISTRATION>, signal = new AbortController().signal) {
  let outcome: SetupOutcome | null = null;
  const done = setUpNotifications(steps, signal).then((result) => {
    outcome = result;
    return result;
  });
  return { done, outcome: () => outcome };
}

describe('setUpNotifications', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts after the init delay and subscribes after the push delay', async () => {
    const { steps, calls } = recordingSteps();
    const { done } = run(steps);
    await vi.advanceTimersByTimeAsync(NOTIFICATIONS.initDelayMs - 1);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([
      ['ready', NOTIFICATIONS.initDelayMs],
      ['permission', NOTIFICATIONS.initDelayMs],
    ]);
    await vi.advanceTimersByTimeAsync(NOTIFICATIONS.pushDelayMs);
    expect(calls.at(-1)).toEqual(['subscribe /', NOTIFICATIONS.initDelayMs + NOTIFICATIONS.pushDelayMs]);
    await expect(done).resolves.toBe('subscribed');
  });

  it('does not subscribe without permission', async () => {
    const { steps, calls } = recordingSteps({ permission: async () => 'denied' });
    const { done } = run(steps);
    await vi.runAllTimersAsync();
    await expect(done).resolves.toBe('no-permission');
    expect(calls.map(([name]) => name)).toEqual(['ready']);
  });

  it('stops where there is no service worker', async () => {
    const { steps } = recordingSteps({ ready: async () => null });
    const { done } = run(steps);
    await vi.runAllTimersAsync();
    await expect(done).resolves.toBe('unsupported');
  });

  it('gives up on a service worker that is not ready within the timeout', async () => {
    const { steps, calls } = recordingSteps({ ready: () => new Promise(() => {}) });
    const { outcome } = run(steps);
    await vi.advanceTimersByTimeAsync(NOTIFICATIONS.initDelayMs + NOTIFICATIONS.setupTimeoutMs - 1);
    expect(outcome()).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome()).toBe('timed-out');
    expect(calls).toEqual([]);
  });

  it('gives up on a subscription that takes longer than the timeout', async () => {
    const { steps } = recordingSteps({ subscribe: () => new Promise(() => {}) });
    const { outcome } = run(steps);
    const subscribeAt = NOTIFICATIONS.initDelayMs + NOTIFICATIONS.pushDelayMs;
    await vi.advanceTimersByTimeAsync(subscribeAt + NOTIFICATIONS.setupTimeoutMs - 1);
    expect(outcome()).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome()).toBe('timed-out');
  });

  it('waits for the person to answer the permission request, however long it takes', async () => {
    let answer: (permission: NotificationPermission) => void = () => {};
    const { steps, calls } = recordingSteps({
      permission: () => new Promise((resolve) => (answer = resolve)),
    });
    const { done } = run(steps);
    await vi.advanceTimersByTimeAsync(NOTIFICATIONS.initDelayMs + NOTIFICATIONS.setupTimeoutMs * 3);
    answer('granted');
    await vi.advanceTimersByTimeAsync(NOTIFICATIONS.pushDelayMs);
    await expect(done).resolves.toBe('subscribed');
    expect(calls.at(-1)?.[0]).toBe('subscribe /');
  });

  it('passes a failed subscription on', async () => {
    const { steps } = recordingSteps({
      subscribe: async () => Promise.reject(new Error('push service down')),
    });
    const { done } = run(steps);
    const failed = expect(done).rejects.toThrow('push service down');
    await vi.runAllTimersAsync();
    await failed;
  });

  it('does nothing more once cancelled (logout)', async () => {
    const { steps, calls } = recordingSteps();
    const controller = new AbortController();
    const { done } = run(steps, controller.signal);
    await vi.advanceTimersByTimeAsync(NOTIFICATIONS.initDelayMs / 2);
    controller.abort();
    await expect(done).resolves.toBe('cancelled');
    expect(calls).toEqual([]);
  });
});
