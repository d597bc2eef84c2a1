/**
 * Notifications in Chromium (spec sections 2, 4, 7 and 9): the service worker registers and
 * shows what a push carries, as it came (title, body, action labels in the recipient's
 * language), with the call's vibration and requireInteraction, replacing and withdrawing by
 * tag; a click on a call notification's "accept" answers a real ringing call, and dismissing
 * it declines the call; the permission prompt shows once, and only to Safari and mobile
 * browsers.
 *
 * A push cannot come from a real push service here, so the test hands the payload to the
 * worker's own `showPush`, the function its `push` listener runs; clicks and dismissals go
 * through `onNotificationClick` and `onNotificationClose` the same way (a synthetic event's
 * `waitUntil` would throw).
 */
import type { BrowserContext, Page, Worker } from '@playwright/test';
import {
  apiCall,
  befriend,
  type CallBrowser,
  type CallBrowserOptions,
  createPerson,
  openDashboardAs,
  type Person,
} from '@voice/browser-bots';
import type { PushPayload } from '@voice/protocol';
import { expect, test } from '../support/callBrowser.ts';

const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const CHROME_DESKTOP =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The worker's top-level functions (web/public/sw.js), as the tests call them. */
interface WorkerScope {
  registration: ServiceWorkerRegistration;
  showPush(payload: PushPayload): Promise<void>;
  onNotificationClick(notification: Notification, action: string): Promise<void>;
  onNotificationClose(notification: Notification): Promise<void>;
}

/** What a shown notification says and does. */
interface Shown {
  title: string;
  body: string;
  tag: string;
  actions: { action: string; title: string }[];
  vibrate: number[];
  requireInteraction: boolean;
}

/** The app's service worker in `context`, once registered. */
async function serviceWorker(context: BrowserContext): Promise<Worker> {
  const running = context.serviceWorkers().find((worker) => worker.url().endsWith('/sw.js'));
  return running ?? context.waitForEvent('serviceworker', (worker) => worker.url().endsWith('/sw.js'));
}

function showPush(worker: Worker, payload: PushPayload): Promise<void> {
  return worker.evaluate((p) => (self as unknown as WorkerScope).showPush(p), payload);
}

/** The notifications the worker shows now (all, or those of `tag`). */
function shownNotifications(worker: Worker, tag?: string): Promise<Shown[]> {
  return worker.evaluate(async (filter) => {
    const scope = self as unknown as WorkerScope;
    const list = await scope.registration.getNotifications(filter ? { tag: filter } : undefined);
    return list.map((n) => {
      const extra = n as Notification & { actions: { action: string; title: string }[]; vibrate: number[] };
      return {
        title: n.title,
        body: n.body,
        tag: n.tag,
        actions: extra.actions.map(({ action, title }) => ({ action, title })),
        vibrate: [...extra.vibrate],
        requireInteraction: n.requireInteraction,
      };
    });
  }, tag);
}

/** The person clicks `action` ('' for the body) on the notification of `tag`, or dismisses it. */
function act(worker: Worker, tag: string, action: string | 'dismiss'): Promise<void> {
  return worker.evaluate(
    async ({ tag: wanted, action: what }) => {
      const scope = self as unknown as WorkerScope;
      const [notification] = await scope.registration.getNotifications({ tag: wanted });
      if (!notification) throw new Error(`No notification with the tag ${wanted}`);
      if (what === 'dismiss') {
        notification.close();
        await scope.onNotificationClose(notification);
      } else {
        await scope.onNotificationClick(notification, what);
      }
    },
    { tag, action },
  );
}

function callPayload(callId: string, caller: Person): PushPayload {
  return {
    type: 'incoming-call',
    tag: `call:${callId}`,
    callId,
    title: `${caller.displayName} ruft dich an`,
    body: 'Eingehender Anruf',
    icon: null,
    actions: { accept: 'Annehmen', reject: 'Ablehnen' },
    caller: { id: caller.id, username: caller.username, display_name: caller.displayName, avatar_url: null },
  };
}

/**
 * Resolves once `page`'s app socket is open: the app reports its visibility first thing
 * (`set-visibility`), so events sent from then on reach the page.
 */
function socketOpened(page: Page): Promise<void> {
  return new Promise((resolve) => {
    page.on('websocket', (socket) =>
      socket.on('framesent', ({ payload }) => {
        if (typeof payload === 'string' && payload.includes('"set-visibility"')) resolve();
      }),
    );
  });
}

/** The id of each call that rings on `page`, as its app socket receives it. */
function ringingCallIds(page: Page): string[] {
  const ids: string[] = [];
  page.on('websocket', (socket) =>
    socket.on('framereceived', ({ payload }) => {
      if (typeof payload !== 'string' || !payload.includes('"incoming-call"')) return;
      const frame = JSON.parse(payload) as { method?: string; data?: { callId?: string } };
      if (frame.method === 'incoming-call' && frame.data?.callId) ids.push(frame.data.callId);
    }),
  );
  return ids;
}

test.describe('the service worker', () => {
  test('registers, and shows a push as it came, replaced and withdrawn by tag', async ({ page, context }) => {
    await context.grantPermissions(['notifications']);
    await page.goto('/login');
    const worker = await serviceWorker(context);
    await expect
      .poll(() => page.evaluate(async () => Boolean(await navigator.serviceWorker.ready)))
      .toBe(true);

    const caller = { id: 'u-1', username: 'alice', displayName: 'Alice' } as Person;
    await showPush(worker, callPayload('call-1', caller));
    expect(await shownNotifications(worker, 'call:call-1')).toEqual([
      {
        title: 'Alice ruft dich an',
        body: 'Eingehender Anruf',
        tag: 'call:call-1',
        actions: [
          { action: 'accept', title: 'Annehmen' },
          { action: 'reject', title: 'Ablehnen' },
        ],
        vibrate: [200, 100, 200, 100, 200],
        requireInteraction: true,
      },
    ]);
    // The same call again replaces its notification instead of adding one.
    await showPush(worker, callPayload('call-1', caller));
    await expect.poll(async () => (await shownNotifications(worker, 'call:call-1')).length).toBe(1);

    await showPush(worker, {
      type: 'friend-request',
      tag: 'friend-request:u-2',
      userId: 'u-2',
      title: 'Nueva solicitud de amistad',
      body: 'Bob quiere ser tu amigo.',
      icon: null,
      actions: { accept: 'Aceptar' },
    });
    const [request] = await shownNotifications(worker, 'friend-request:u-2');
    expect(request?.actions).toEqual([{ action: 'accept', title: 'Aceptar' }]);
    expect(request?.vibrate).toEqual([]);

    await showPush(worker, { type: 'withdraw', tag: 'call:call-1' });
    await expect.poll(() => shownNotifications(worker, 'call:call-1')).toEqual([]);
    expect((await shownNotifications(worker)).map((n) => n.tag)).toEqual(['friend-request:u-2']);
  });
});

test.describe('a call notification', () => {
  let alice: Person;
  let bob: Person;

  test.beforeEach(async ({ baseURL }) => {
    if (!baseURL) throw new Error('no baseURL');
    alice = await createPerson(baseURL, 'Alice');
    bob = await createPerson(baseURL, 'Bob');
    await befriend(baseURL, alice, bob);
  });

  /** Alice and Bob signed in, each in a browser; Bob allows notifications; Bob online in Alice's list. */
  async function openBoth(launch: (options: CallBrowserOptions) => Promise<CallBrowser>, baseURL?: string) {
    const a = await launch({ ...(baseURL ? { baseURL } : {}) });
    const b = await launch({ ...(baseURL ? { baseURL } : {}) });
    await b.context.grantPermissions(['notifications']);
    const callIds = ringingCallIds(b.page);
    await openDashboardAs(b.page, bob);
    const worker = await serviceWorker(b.context);
    await openDashboardAs(a.page, alice);
    await a.page.getByRole('tab', { name: 'Friends' }).click();
    const bobRow = a.page
      .getByRole('list', { name: 'Friends' })
      .getByRole('listitem')
      .filter({ hasText: 'Bob' });
    await expect(bobRow).toContainText('Online');
    return { a, b, worker, callIds, bobRow };
  }

  test('accept answers the ringing call; dismissing it declines the next', async ({
    baseURL,
    launchCallBrowser,
  }) => {
    const { a, b, worker, callIds, bobRow } = await openBoth(launchCallBrowser, baseURL);
    const aliceCall = a.page.getByRole('region', { name: 'Call with Bob' });

    await bobRow.getByRole('button', { name: 'Call Bob' }).click();
    await expect(b.page.getByRole('alertdialog')).toContainText('Alice is calling you');
    await expect.poll(() => callIds.length).toBe(1);
    const first = callIds[0] as string;
    await showPush(worker, callPayload(first, alice));
    await act(worker, `call:${first}`, 'accept');
    await expect(aliceCall.locator('time')).toHaveText(/^0:0\d$/);
    await expect(b.page.getByRole('region', { name: 'Call with Alice' }).locator('time')).toHaveText(
      /^0:0\d$/,
    );
    await aliceCall.getByRole('button', { name: 'Leave call' }).click();
    await expect(aliceCall).toBeHidden();

    await bobRow.getByRole('button', { name: 'Call Bob' }).click();
    await expect(b.page.getByRole('alertdialog')).toContainText('Alice is calling you');
    await expect.poll(() => callIds.length).toBe(2);
    const second = callIds[1] as string;
    await showPush(worker, callPayload(second, alice));
    await act(worker, `call:${second}`, 'dismiss');
    await expect(a.page.getByRole('status').filter({ hasText: 'Call was declined' })).toBeVisible();
    await expect(b.page.getByRole('alertdialog')).toBeHidden();
  });

  test('a click on its body only brings the app forward: the call keeps ringing', async ({
    baseURL,
    launchCallBrowser,
  }) => {
    const { a, b, worker, callIds, bobRow } = await openBoth(launchCallBrowser, baseURL);
    await bobRow.getByRole('button', { name: 'Call Bob' }).click();
    await expect.poll(() => callIds.length).toBe(1);
    const callId = callIds[0] as string;
    await showPush(worker, callPayload(callId, alice));
    await act(worker, `call:${callId}`, '');
    await expect(b.page.getByRole('alertdialog')).toContainText('Alice is calling you');
    await expect(a.page.getByRole('region', { name: 'Call with Bob' })).toContainText('Calling…');
    // Declined in the page: the app closes the call's notification itself.
    await showPush(worker, callPayload(callId, alice));
    await b.page.getByRole('alertdialog').getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => shownNotifications(worker, `call:${callId}`)).toEqual([]);
  });
});

test.describe('the notification-permission prompt', () => {
  const prompt = (page: Page) => page.getByRole('dialog', { name: 'Turn on notifications?' });

  test('shows once after login on Safari and mobile browsers', async ({ browser, baseURL }) => {
    if (!baseURL) throw new Error('no baseURL');
    const person = await createPerson(baseURL, 'Iris');
    const context = await browser.newContext({ baseURL, userAgent: SAFARI_IPHONE });
    try {
      const page = await context.newPage();
      await openDashboardAs(page, person);
      await expect(prompt(page)).toBeVisible();
      expect(await page.evaluate(() => localStorage.getItem('notificationPromptShown'))).not.toBeNull();
      await prompt(page).getByRole('button', { name: 'Not now' }).first().click();
      await expect(prompt(page)).toBeHidden();
      await page.reload();
      await expect(page.getByRole('heading', { name: `Welcome, ${person.displayName}!` })).toBeVisible();
      // Past the setup delays, still no prompt.
      await page.waitForTimeout(1000);
      await expect(prompt(page)).toBeHidden();
    } finally {
      await context.close();
    }
  });

  test('does not show on a desktop browser other than Safari, nor once permission is granted', async ({
    browser,
    baseURL,
  }) => {
    if (!baseURL) throw new Error('no baseURL');
    const person = await createPerson(baseURL, 'Dora');
    for (const [userAgent, granted] of [
      [CHROME_DESKTOP, false],
      [SAFARI_IPHONE, true],
    ] as const) {
      const context = await browser.newContext({ baseURL, userAgent });
      try {
        if (granted) await context.grantPermissions(['notifications']);
        const page = await context.newPage();
        await openDashboardAs(page, person);
        await page.waitForTimeout(1000);
        await expect(prompt(page)).toBeHidden();
        expect(await page.evaluate(() => localStorage.getItem('notificationPromptShown'))).toBeNull();
      } finally {
        await context.close();
      }
    }
  });
});

test.describe('notification settings and sounds', () => {
  /** The short sound's element in the page, null before it was first played. */
  const requestSound = (page: Page) =>
    page.evaluate(() => {
      const audio = document.querySelector<HTMLAudioElement>('audio[data-sound="notification"]');
      return audio ? { played: audio.played.length > 0 || !audio.paused, volume: audio.volume } : null;
    });

  test('show the permission, and turning sounds off silences an arriving friend request', async ({
    page,
    context,
    baseURL,
  }) => {
    if (!baseURL) throw new Error('no baseURL');
    const [carol, dan, erin] = await Promise.all(
      ['Carol', 'Dan', 'Erin'].map((name) => createPerson(baseURL, name)),
    );
    await context.grantPermissions(['notifications']);
    const opened = socketOpened(page);
    await openDashboardAs(page, carol as Person);
    await opened;
    await page.getByRole('button', { name: /Profile settings/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Profile settings' });
    await expect(dialog).toContainText('Browser notifications: Enabled');
    const sounds = dialog.getByRole('checkbox', { name: 'Sounds (ringtone and alerts)' });
    await expect(sounds).toBeChecked();

    // A request arrives: the short sound plays, at the default volume.
    await apiCall(baseURL, '/users/friend-request', {
      method: 'POST',
      token: (dan as Person).token,
      body: { userId: (carol as Person).id },
    });
    await expect.poll(() => requestSound(page)).toEqual({ played: true, volume: 0.7 });

    await sounds.uncheck();
    expect(await page.evaluate(() => localStorage.getItem('sounds'))).toBe('off');
    // The request must reach the reloaded page's socket, so it is sent once that socket is open.
    const reopened = socketOpened(page);
    await page.reload();
    await expect(
      page.getByRole('heading', { name: `Welcome, ${(carol as Person).displayName}!` }),
    ).toBeVisible();
    await reopened;
    await apiCall(baseURL, '/users/friend-request', {
      method: 'POST',
      token: (erin as Person).token,
      body: { userId: (carol as Person).id },
    });
    // Arrived over the socket (the toast), and no sound with it.
    await expect(page.getByText('Erin sent you a friend request')).toBeVisible();
    expect(await requestSound(page)).toBeNull();
  });
});
