/**
 * Friends, search and live presence over the app socket, with two (or more) people in
 * separate browser contexts against the real API. Accounts are made through the API.
 */
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Locator, Page } from '@playwright/test';
import { apiCall, befriend, createPerson, type Person } from '@voice/browser-bots';
import { expect, test } from '../support/fixtures.ts';

/** Usernames of this run share a prefix, so a search finds exactly them. */
const runTag = () => `f${Date.now().toString(36).slice(-5)}${Math.random().toString(36).slice(2, 5)}`;

/** A fresh browser context signed in as `person`, on the dashboard with its socket open. */
async function openDashboard(
  browser: Browser,
  baseURL: string,
  person: Person,
  { theme = 'dark', viewport = { width: 1280, height: 800 }, language = 'en' } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  // A restored session takes the theme kept in the profile.
  await apiCall(baseURL, '/users/profile', { method: 'PUT', token: person.token, body: { theme } });
  const context = await browser.newContext({ baseURL, locale: 'en-US', viewport });
  const page = await context.newPage();
  await page.goto('/login');
  await page.evaluate(
    ([token, chosenTheme, chosenLanguage]) => {
      localStorage.setItem('token', token as string);
      localStorage.setItem('theme', chosenTheme as string);
      localStorage.setItem('i18nextLng', chosenLanguage as string);
    },
    [person.token, theme, language],
  );
  const socket = page.waitForEvent('websocket', (ws) => new URL(ws.url()).pathname === '/ws');
  await page.goto('/dashboard');
  await expect(page.getByTestId('current-user')).toContainText(person.displayName);
  await expect(page.locator('html')).toHaveAttribute('lang', language);
  await socket;
  return { context, page };
}

/** No serious or critical axe findings (WCAG 2.2 AA, contrast included) on what is shown. */
async function expectAccessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious, `${what}: serious or critical axe violations`).toEqual([]);
}

const searchBox = (page: Page) => page.getByLabel('Search people');
const list = (page: Page, name: string) => page.getByRole('list', { name, exact: true });
const row = (scope: Locator, person: Person) =>
  scope.getByRole('listitem').filter({ hasText: person.displayName });
const tab = (page: Page, name: string) => page.getByRole('tab', { name: new RegExp(`^${name}`) });

test.describe('friends', () => {
  test('search, request, accept; both see each other online, then offline within 7 s', async ({
    browser,
    baseURL,
  }) => {
    const tag = runTag();
    const ann = await createPerson(baseURL as string, 'Ann Archer', { username: `${tag}_ann` });
    const bob = await createPerson(baseURL as string, 'Bob Baker', { username: `${tag}_bob` });
    const annSide = await openDashboard(browser, baseURL as string, ann);
    const bobSide = await openDashboard(browser, baseURL as string, bob);
    const annPage = annSide.page;
    const bobPage = bobSide.page;

    // One character is not enough to search.
    await searchBox(annPage).fill('b');
    await expect(annPage.getByText('Type at least 2 characters')).toBeVisible();
    await searchBox(annPage).fill(bob.username);
    const bobResult = row(list(annPage, 'Search results'), bob);
    await expect(bobResult).toContainText(`@${bob.username}`);
    await bobResult.getByRole('button', { name: 'Add friend' }).click();
    await expect(bobResult).toContainText('Request sent');

    // Bob hears of it live: a toast, a badge on the "All" tab, and the request in the list.
    await expect(
      bobPage.getByRole('status').filter({ hasText: 'Ann Archer sent you a friend request' }),
    ).toBeVisible();
    await expect(tab(bobPage, 'All')).toContainText('1');
    const annRequest = row(list(bobPage, 'Friend requests'), ann);
    await expect(annRequest).toContainText('Wants to be your friend');
    await annRequest.getByRole('button', { name: 'Accept' }).click();
    await expect(list(bobPage, 'Friend requests')).toHaveCount(0);

    // Each sees the other under "Online now", and Ann's search result follows along.
    await expect(row(list(bobPage, 'Online now'), ann)).toContainText('Online');
    await expect(row(list(annPage, 'Online now'), bob)).toContainText('Online');
    await expect(bobResult).toContainText('Friends');

    // A new avatar shows up at once.
    await apiCall(baseURL as string, '/users/profile', {
      method: 'PUT',
      token: bob.token,
      body: { avatar: 'fox' },
    });
    await expect(row(list(annPage, 'Online now'), bob).locator('img')).toHaveAttribute('src', /fox/);

    // Bob closes his only tab: after the 5 s grace period Ann sees him offline.
    const closedAt = Date.now();
    await bobSide.context.close();
    await expect(list(annPage, 'Online now')).toHaveCount(0, { timeout: 7000 });
    expect(Date.now() - closedAt).toBeLessThan(7000);
    await expect(annPage.getByText('None of your friends are online right now.')).toBeVisible();
    await tab(annPage, 'Friends').click();
    const bobRow = row(list(annPage, 'Friends'), bob);
    await expect(bobRow).toContainText('Offline');
    await expect(bobRow).toContainText('Last seen just now');
    await annSide.context.close();
  });

  test('resyncs after the socket comes back, without a reload', async ({ browser, baseURL }) => {
    const tag = runTag();
    const ann = await createPerson(baseURL as string, 'Ann Archer', { username: `${tag}_ann` });
    const cid = await createPerson(baseURL as string, 'Cid Carter', { username: `${tag}_cid` });
    const { context, page } = await openDashboard(browser, baseURL as string, ann);
    await expect(page.getByText('Nothing here yet')).toBeVisible();

    // The network goes away: the socket drops and the app says it is reconnecting.
    await context.setOffline(true);
    await expect(page.getByText('Connection lost. Reconnecting…')).toBeVisible();
    // Meanwhile Cid asks to be friends; the event has nowhere to go.
    await apiCall(baseURL as string, '/users/friend-request', {
      method: 'POST',
      token: cid.token,
      body: { userId: ann.id },
    });
    await page.waitForTimeout(1500);
    await expect(page.getByRole('list', { name: 'Friend requests' })).toHaveCount(0);

    await context.setOffline(false);
    await expect(row(list(page, 'Friend requests'), cid)).toBeVisible();
    await expect(page.getByText('Connection lost. Reconnecting…')).toBeHidden();
    await context.close();
  });

  test('a session ended elsewhere closes the socket and sends the tab to /login', async ({
    browser,
    baseURL,
  }) => {
    const ann = await createPerson(baseURL as string, 'Ann Archer', { username: `${runTag()}_ann` });
    const { context, page } = await openDashboard(browser, baseURL as string, ann);
    // Logging out with the same token (as another tab or device would) revokes the session.
    await apiCall(baseURL as string, '/auth/logout', { method: 'POST', token: ann.token });
    await expect(page).toHaveURL(/\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await context.close();
  });

  test('removes a friend after confirmation; the other side sees it live', async ({ browser, baseURL }) => {
    const tag = runTag();
    const ann = await createPerson(baseURL as string, 'Ann Archer', { username: `${tag}_ann` });
    const dan = await createPerson(baseURL as string, 'Dan Drake', { username: `${tag}_dan` });
    await befriend(baseURL as string, ann, dan);
    const danSide = await openDashboard(browser, baseURL as string, dan);
    const { context, page } = await openDashboard(browser, baseURL as string, ann);

    await tab(page, 'Friends').click();
    const danRow = row(list(page, 'Friends'), dan);
    await expect(danRow).toContainText('Online');
    await danRow.getByRole('button', { name: 'Remove Dan Drake from friends' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove Dan Drake from friends?' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();

    // Escape closes it and changes nothing; focus goes back to the button that opened it.
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(danRow).toBeVisible();
    await expect(danRow.getByRole('button', { name: 'Remove Dan Drake from friends' })).toBeFocused();

    await danRow.getByRole('button', { name: 'Remove Dan Drake from friends' }).click();
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText('No friends yet')).toBeVisible();
    await expect(danSide.page.getByText('Nothing here yet')).toBeVisible();
    await danSide.context.close();
    await context.close();
  });

  test('sent requests: listed, cancelled live on the other side; a rejection brings "Add friend" back', async ({
    browser,
    baseURL,
  }) => {
    const tag = runTag();
    const ann = await createPerson(baseURL as string, 'Ann Archer', { username: `${tag}_ann` });
    const bob = await createPerson(baseURL as string, 'Bob Baker', { username: `${tag}_bob` });
    const annSide = await openDashboard(browser, baseURL as string, ann);
    const bobSide = await openDashboard(browser, baseURL as string, bob);
    const { page } = annSide;

    await searchBox(page).fill(bob.username);
    const bobResult = row(list(page, 'Search results'), bob);
    await bobResult.getByRole('button', { name: 'Add friend' }).click();
    await expect(bobResult).toContainText('Request sent');
    const sentRow = row(list(page, 'Sent requests'), bob);
    await expect(sentRow).toContainText('Waiting for an answer');
    await expect(row(list(bobSide.page, 'Friend requests'), ann)).toBeVisible();

    // The list survives a reload: it comes from the server, not from this tab's memory.
    await page.reload();
    await expect(row(list(page, 'Sent requests'), bob)).toBeVisible();

    // Ann withdraws it: gone from her Sent list, and from Bob's requests without a reload.
    await row(list(page, 'Sent requests'), bob).getByRole('button', { name: 'Cancel request' }).click();
    await expect(list(page, 'Sent requests')).toHaveCount(0);
    await expect(list(bobSide.page, 'Friend requests')).toHaveCount(0);
    await expect(bobSide.page.getByText('Nothing here yet')).toBeVisible();

    // She asks again, and Bob says no: her search result offers "Add friend" again, live.
    await searchBox(page).fill(bob.username);
    await bobResult.getByRole('button', { name: 'Add friend' }).click();
    await expect(bobResult).toContainText('Request sent');
    const annRequest = row(list(bobSide.page, 'Friend requests'), ann);
    await annRequest.getByRole('button', { name: 'Reject' }).click();
    await expect(bobResult.getByRole('button', { name: 'Add friend' })).toBeVisible();
    await expect(list(page, 'Sent requests')).toHaveCount(0);
    await bobSide.context.close();
    await annSide.context.close();
  });

  test("a new display name reaches a friend's page and the person's other tab live", async ({
    browser,
    baseURL,
  }) => {
    const tag = runTag();
    const ann = await createPerson(baseURL as string, 'Ann Archer', { username: `${tag}_ann` });
    const bob = await createPerson(baseURL as string, 'Bob Baker', { username: `${tag}_bob` });
    await befriend(baseURL as string, ann, bob);
    const bobSide = await openDashboard(browser, baseURL as string, bob);
    const annSide = await openDashboard(browser, baseURL as string, ann);
    await expect(row(list(bobSide.page, 'Online now'), ann)).toBeVisible();

    await apiCall(baseURL as string, '/users/profile', {
      method: 'PUT',
      token: ann.token,
      body: { display_name: 'Annabel Archer' },
    });
    const renamed = { ...ann, displayName: 'Annabel Archer' };
    await expect(row(list(bobSide.page, 'Online now'), renamed)).toContainText(`@${ann.username}`);
    await expect(annSide.page.getByTestId('current-user')).toContainText('Annabel Archer');
    await bobSide.context.close();
    await annSide.context.close();
  });

  test("while one's own socket is down, friends' presence is unknown, not the last state", async ({
    browser,
    baseURL,
  }) => {
    const tag = runTag();
    const ann = await createPerson(baseURL as string, 'Ann Archer', { username: `${tag}_ann` });
    const bob = await createPerson(baseURL as string, 'Bob Baker', { username: `${tag}_bob` });
    await befriend(baseURL as string, ann, bob);
    const bobSide = await openDashboard(browser, baseURL as string, bob);
    const { context, page } = await openDashboard(browser, baseURL as string, ann);
    await expect(row(list(page, 'Online now'), bob)).toContainText('Online');

    await context.setOffline(true);
    await expect(page.getByText('Connection lost. Reconnecting…')).toBeVisible();
    await expect(list(page, 'Online now')).toHaveCount(0);
    await expect(page.getByText('Who is online will show again once the connection is back.')).toBeVisible();
    await tab(page, 'Friends').click();
    const bobRow = row(list(page, 'Friends'), bob);
    await expect(bobRow).toContainText('Status unknown');
    await expect(bobRow).not.toContainText('Online');
    await expect(bobRow.locator('.presence__badge--unknown')).toBeVisible();
    // Bob really goes away meanwhile; nothing can tell Ann, and nothing claims he is still there.
    await bobSide.context.close();
    await page.waitForTimeout(1000);
    await expect(bobRow).toContainText('Status unknown');

    await context.setOffline(false);
    await expect(bobRow).toContainText('Offline', { timeout: 15_000 });
    await expect(bobRow).not.toContainText('Status unknown');
    await context.close();
  });

  test('a failed load says so and loads again on retry', async ({ browser, baseURL }) => {
    const tag = runTag();
    const ann = await createPerson(baseURL as string, 'Ann Archer', { username: `${tag}_ann` });
    const eve = await createPerson(baseURL as string, 'Eve Evans', { username: `${tag}_eve` });
    await befriend(baseURL as string, eve, ann);
    const context = await browser.newContext({ baseURL, locale: 'en-US' });
    await context.addInitScript((token) => localStorage.setItem('token', token), ann.token);
    const page = await context.newPage();
    let loads = 0;
    await page.route('**/api/users/friends-with-call-status', (route) => {
      loads += 1;
      return route.abort();
    });
    await page.goto('/dashboard');
    await expect(page.getByRole('alert')).toContainText('Failed to load friends');
    // The load at start and the one made when the app socket opened have both failed (the
    // second may come after the first failure shows): only the person's retry is left.
    await expect.poll(() => loads).toBeGreaterThanOrEqual(2);
    await expect(page.getByRole('alert')).toContainText('Failed to load friends');
    await page.unroute('**/api/users/friends-with-call-status');
    await page.getByRole('button', { name: 'Try again' }).click();
    await tab(page, 'Friends').click();
    await expect(row(list(page, 'Friends'), eve)).toContainText('Offline');
    await context.close();
  });

  test('friends live above the pages: a request that arrives on another page is there, announced, on return', async ({
    browser,
    baseURL,
  }) => {
    const tag = runTag();
    const ann = await createPerson(baseURL as string, 'Ann Archer', { username: `${tag}_ann` });
    const bob = await createPerson(baseURL as string, 'Bob Baker', { username: `${tag}_bob` });
    const context = await browser.newContext({ baseURL, locale: 'en-US' });
    await context.addInitScript((token) => localStorage.setItem('token', token), ann.token);
    const page = await context.newPage();
    const frames: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => frames.push(String(payload))));
    let loads = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/users/friends-with-call-status') loads += 1;
    });

    // Into the dashboard from another page, and back out, all inside the app (no page load).
    await page.goto('/language-test');
    await page.getByRole('link', { name: 'Voice', exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByText('Nothing here yet')).toBeVisible();
    await page.goBack();
    await expect(page.getByRole('heading', { name: 'Language test' })).toBeVisible();
    const loadsBefore = loads;

    await apiCall(baseURL as string, '/users/friend-request', {
      method: 'POST',
      token: bob.token,
      body: { userId: ann.id },
    });
    await expect.poll(() => frames.some((frame) => frame.includes('friend-request-received'))).toBe(true);

    await page.goForward();
    await expect(page.getByText('Bob Baker sent you a friend request')).toBeVisible();
    await expect(row(list(page, 'Friend requests'), bob)).toBeVisible();
    // Nothing had to be fetched again: the lists stayed current while the dashboard was away.
    expect(loads).toBe(loadsBefore);
    await context.close();
  });
});

test('friends screens in both themes at 1280 and 360 px', async ({ browser, baseURL }, testInfo) => {
  // A long tour (two themes, two widths, accessibility checks, three languages): about 1.5 min
  // on an idle machine, past 2 min on a busy one.
  test.setTimeout(240_000);
  const url = baseURL as string;
  const tag = runTag();
  const make = (name: string, display: string, avatar?: string) =>
    createPerson(url, display, { username: `${tag}_${name}`, ...(avatar ? { avatar } : {}) });
  const me = await make('maya', 'Maya Chen', 'cat');
  const [bob, eve, frank, dmitri, gina, hugo, ivy] = await Promise.all([
    make('bob', 'Bob Baker', 'bear'),
    make('eve', 'Eve Martin', 'owl'),
    make('frank', 'Frank Oduya'),
    make('dmitri', 'Dmitri Volkov', 'panda'),
    make('gina', 'Gina Rossi'),
    make('hugo', 'Hugo Lambert', 'fox'),
    make('ivy', 'Ivy Nakamura-Fitzgerald'),
  ]);
  for (const friend of [bob, eve, frank] as Person[]) await befriend(url, friend, me);
  for (const asker of [dmitri, gina] as Person[]) {
    await apiCall(url, '/users/friend-request', {
      method: 'POST',
      token: asker.token,
      body: { userId: me.id },
    });
  }
  await apiCall(url, '/users/friend-request', {
    method: 'POST',
    token: me.token,
    body: { userId: hugo?.id },
  });
  expect(ivy).toBeTruthy();

  // Eve was here a moment ago (a "last seen"); Bob stays online throughout.
  const eveSide = await openDashboard(browser, url, eve as Person);
  await eveSide.context.close();
  await expect
    .poll(
      async () => {
        const { friends } = await apiCall<{
          friends: { id: string; is_online: boolean; last_seen: string | null }[];
        }>(url, '/users/friends', { token: me.token });
        const seen = friends.find((f) => f.id === eve?.id);
        return seen && !seen.is_online && seen.last_seen !== null;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  const bobSide = await openDashboard(browser, url, bob as Person);

  const dir = path.join(testInfo.project.outputDir, 'screens');
  const viewports = { desktop: { width: 1280, height: 800 }, mobile: { width: 360, height: 740 } };
  for (const [viewportName, viewport] of Object.entries(viewports)) {
    for (const theme of ['dark', 'light']) {
      const { context, page } = await openDashboard(browser, url, me, { theme, viewport });
      /** Full page, or only the viewport for what floats over it (dialog, toast). */
      const shot = async (name: string, fullPage = true) => {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, 'page is wider than the viewport').toBeLessThanOrEqual(0);
        await page.screenshot({
          path: path.join(dir, `friends-${viewportName}-${theme}-${name}.png`),
          fullPage,
          animations: 'disabled',
        });
      };
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await expect(row(list(page, 'Online now'), bob as Person)).toContainText('Online');
      await expect(list(page, 'Friend requests').getByRole('listitem')).toHaveCount(2);
      await shot('all');
      const checkA11y = viewportName === 'desktop';
      if (checkA11y) await expectAccessible(page, `all tab, ${theme}`);

      await tab(page, 'Friends').click();
      await expect(row(list(page, 'Friends'), eve as Person)).toContainText('Last seen');
      await shot('list');

      await searchBox(page).fill(tag);
      await expect(list(page, 'Search results').getByRole('listitem')).toHaveCount(7);
      await expect(row(list(page, 'Search results'), hugo as Person)).toContainText('Request sent');
      await searchBox(page).blur();
      await shot('search');
      if (checkA11y) await expectAccessible(page, `search results and friends, ${theme}`);

      await row(list(page, 'Friends'), frank as Person)
        .getByRole('button', { name: /^Remove/ })
        .click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await shot('remove-dialog', false);
      if (checkA11y) await expectAccessible(page, `remove dialog, ${theme}`);
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toBeHidden();

      // A request arriving live (then declined, so the next round starts the same), and a lost connection.
      const jay = await createPerson(url, 'Jay Whitaker', { username: `${runTag()}_jay`, avatar: 'koala' });
      await apiCall(url, '/users/friend-request', {
        method: 'POST',
        token: jay.token,
        body: { userId: me.id },
      });
      await expect(page.getByText('Jay Whitaker sent you a friend request')).toBeVisible();
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot('toast', false);
      if (checkA11y) await expectAccessible(page, `toast, ${theme}`);
      await apiCall(url, '/users/friend-request/reject', {
        method: 'POST',
        token: me.token,
        body: { userId: jay.id },
      });
      await context.setOffline(true);
      await expect(page.getByText('Connection lost. Reconnecting…')).toBeVisible();
      await shot('reconnecting', false);
      await context.close();
    }
  }

  // Longer words, same 360 px (ja is left out: this Chromium has no CJK font).
  for (const language of ['ru', 'de', 'fr']) {
    await apiCall(url, '/users/profile', { method: 'PUT', token: me.token, body: { language } });
    const { context, page } = await openDashboard(browser, url, me, { viewport: viewports.mobile, language });
    await expect(row(page.getByRole('list').last(), bob as Person)).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${language}: page is wider than the viewport`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(dir, `friends-mobile-${language}-all.png`), fullPage: true });
    await page.getByRole('searchbox').fill(tag);
    await expect(row(page.getByRole('list').first(), ivy as Person)).toBeVisible();
    await page.screenshot({ path: path.join(dir, `friends-mobile-${language}-search.png`), fullPage: true });
    await context.close();
  }
  await bobSide.context.close();
});
