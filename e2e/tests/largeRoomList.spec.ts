/**
 * A large room in the web app: a real page in a room with 150 others (test accounts seeded through
 * LOADTEST_SECRET, each a protoo member of the test holding a real /rtc connection, without audio).
 * The people list renders only the rows in view: far fewer tiles than people in the page, your own
 * tile first, later people shown as the page scrolls; the search finds a member by name (case and
 * accents aside) within a second, says when no one matches; keyboard focus in a tile survives
 * scrolling it away; mute and leave stay in view; axe finds nothing serious in the list.
 */
import { randomBytes } from 'node:crypto';
import { type Browser, expect, type Page, test } from '@playwright/test';
import { apiCall, createPerson, openDashboardAs, type Person } from '@voice/browser-bots';
import { join, TestMember } from '@voice/media-server/testing';
import {
  API_BASE,
  type CleanupResponse,
  type JoinRoomResponse,
  LOADTEST_ROUTES,
  LOADTEST_SECRET_HEADER,
  ROOM_LIMITS,
  ROOM_ROUTES,
  type SeedAccount,
  type SeedResponse,
} from '@voice/protocol';
import { ApiServer } from '../support/ApiServer.ts';
import { expectAccessible } from '../support/a11y.ts';
import { Mailbox } from '../support/Mailbox.ts';

const SECRET = randomBytes(16).toString('hex');
/** A prefix of this run's own, so a shared database keeps other runs' accounts apart. */
const PREFIX = `lr${randomBytes(3).toString('hex')}_`;
/** The others in the room (fewer if the room cap is lower). */
const OTHERS = Math.min(150, ROOM_LIMITS.maxParticipants - 1);
/** Members joining at once. */
const JOIN_BATCH = 10;
/** The name one of them takes, for the search. */
const ACCENTED = 'Zoë Ångström';

const panel = (page: Page) => page.getByRole('region', { name: 'Voice' });
const tiles = (page: Page) => page.locator('li.participant');

/** The load tester's accounts route, behind the secret. */
async function loadtest<T>(baseURL: string, route: string, body: unknown): Promise<T> {
  const response = await fetch(`${baseURL}${API_BASE}${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [LOADTEST_SECRET_HEADER]: SECRET },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${route} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** `account` in the room as a protoo member, joined through the API like a browser. */
async function enter(baseURL: string, roomId: string, account: SeedAccount): Promise<TestMember> {
  const answer = await apiCall<JoinRoomResponse>(baseURL, ROOM_ROUTES.join(roomId), {
    method: 'POST',
    token: account.token,
    body: {},
  });
  const url = new URL(answer.mediaUrl);
  url.searchParams.set('roomId', roomId);
  url.searchParams.set('peerId', account.id);
  url.searchParams.set('token', answer.roomToken);
  const member = await TestMember.connect(url.toString());
  await join(member);
  return member;
}

/** The element lies wholly inside the viewport. */
async function expectInViewport(page: Page, name: string) {
  const box = await panel(page).getByRole('button', { name }).boundingBox();
  const viewport = page.viewportSize();
  expect(box, name).not.toBeNull();
  if (!box || !viewport) return;
  expect(box.y, name).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height, name).toBeLessThanOrEqual(viewport.height);
}

test.describe('a large room', () => {
  test.describe.configure({ mode: 'serial' });
  let api: ApiServer;
  let mailbox: Mailbox;
  const members: TestMember[] = [];
  /** The room and its admin, to delete it afterwards. */
  let made: { roomId: string; admin: Person } | null = null;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    mailbox = await Mailbox.start();
    api = await ApiServer.start({
      smtpUrl: mailbox.url,
      logFile: test.info().outputPath('large-room-api.log'),
      env: { LOADTEST_SECRET: SECRET },
    });
  });

  test.afterAll(async () => {
    for (const member of members) member.close();
    if (api && made) {
      await apiCall(api.url, ROOM_ROUTES.room(made.roomId), { method: 'DELETE', token: made.admin.token });
    }
    if (api) await loadtest<CleanupResponse>(api.url, LOADTEST_ROUTES.cleanup, { prefix: PREFIX });
    await api?.stop();
    await mailbox?.close();
  });

  async function openPage(browser: Browser, person: Person): Promise<Page> {
    const context = await browser.newContext({
      baseURL: api.url,
      locale: 'en-US',
      viewport: { width: 1280, height: 800 },
    });
    const page = await context.newPage();
    await openDashboardAs(page, person);
    return page;
  }

  test(`151 people: a list of the rows in view, a quick search, your tile first`, async ({ browser }) => {
    test.setTimeout(300_000);
    const alice = await createPerson(api.url, 'Alice Largeroom');
    const { accounts } = await loadtest<SeedResponse>(api.url, LOADTEST_ROUTES.seed, {
      prefix: PREFIX,
      count: OTHERS,
    });
    const renamed = accounts[Math.floor(OTHERS / 2)] as SeedAccount;
    await apiCall(api.url, '/users/profile', {
      method: 'PUT',
      token: renamed.token,
      body: { display_name: ACCENTED },
    });
    const name = `Large ${PREFIX}`;
    const { room } = await apiCall<{ room: { id: string } }>(api.url, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: alice.token,
      body: { name, type: 'public', maxParticipants: OTHERS + 1 },
    });
    made = { roomId: room.id, admin: alice };

    const page = await openPage(browser, alice);
    await page.goto(`/rooms/${room.id}`);
    await expect(panel(page).getByText('Voice connected')).toBeVisible();
    for (let i = 0; i < accounts.length; i += JOIN_BATCH) {
      members.push(
        ...(await Promise.all(accounts.slice(i, i + JOIN_BATCH).map((a) => enter(api.url, room.id, a)))),
      );
    }
    await expect(page.getByText(`${OTHERS + 1} people in the room`)).toBeVisible({ timeout: 30_000 });

    // Only the rows in view (and a few around them) are in the page; yours comes first.
    const rendered = await tiles(page).count();
    console.log(`${rendered} of ${OTHERS + 1} tiles in the page`);
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan((OTHERS + 1) * 0.6);
    const first = tiles(page).first();
    await expect(first).toContainText('Alice Largeroom');
    await expect(first).toContainText('(you)');
    await expect(first).toHaveAttribute('aria-posinset', '1');
    await expect(first).toHaveAttribute('aria-setsize', String(OTHERS + 1));
    await page.screenshot({ path: '/tmp/large-room.png' });
    await expectAccessible(page, 'a large room', '.room-view');

    // Scrolling the page brings the last of them in, and takes your tile out.
    const lastTile = page.locator(`li.participant[aria-posinset="${OTHERS + 1}"]`);
    await expect(lastTile).toHaveCount(0);
    await page.mouse.move(640, 400);
    for (let i = 0; i < 40 && (await lastTile.count()) === 0; i++) {
      await page.mouse.wheel(0, 600);
      await page.waitForTimeout(50);
    }
    await expect(lastTile).toBeVisible();
    await expect(tiles(page).filter({ hasText: '(you)' })).toHaveCount(0);
    expect(await tiles(page).count()).toBeLessThan((OTHERS + 1) * 0.6);
    await expectInViewport(page, 'Mute microphone');
    await expectInViewport(page, 'Leave room');

    // The search finds a member by name, whatever the case and the accents, within a second.
    await page.evaluate(() => window.scrollTo(0, 0));
    const search = page.getByRole('searchbox', { name: 'Search people' });
    let started = Date.now();
    await search.fill('zoe angstrom');
    await expect(tiles(page)).toHaveCount(1, { timeout: 1000 });
    await expect(tiles(page)).toContainText(ACCENTED);
    console.log(`the search took ${Date.now() - started} ms`);
    started = Date.now();
    const last = accounts.at(-1) as SeedAccount;
    await search.fill(last.displayName.toLowerCase());
    await expect(tiles(page).filter({ hasText: last.displayName })).toBeVisible({ timeout: 1000 });
    await expect(tiles(page)).toHaveCount(1, { timeout: 1000 });
    await search.fill('nobody by this name');
    await expect(page.getByText('No one matches')).toBeVisible({ timeout: 1000 });
    await expect(tiles(page)).toHaveCount(0);
    // Your own tile first again once the search is cleared.
    await search.fill('');
    await expect(tiles(page).first()).toContainText('(you)');

    // Keyboard: from the search into the first member's controls; the focused tile's row stays
    // in the page while the list scrolls far away from it.
    const second = (await tiles(page).nth(1).locator('.participant__name').textContent()) ?? '';
    await search.focus();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('slider', { name: `Volume of ${second}` })).toBeFocused();
    await page.keyboard.press('Tab');
    const mute = page.getByRole('button', { name: `Mute ${second}` });
    await expect(mute).toBeFocused();
    await expect(mute).toBeVisible();
    await page.screenshot({ path: '/tmp/large-room-focus.png' });
    await page.mouse.move(640, 400);
    for (let i = 0; i < 20; i++) await page.mouse.wheel(0, 600);
    await expect(lastTile).toBeVisible();
    await expect(mute).toBeFocused();
    await page.screenshot({ path: '/tmp/large-room-scrolled.png' });

    // On a phone: a column or four of tiles, mute and leave in view at the end of the list.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(tiles(page).first()).toContainText('(you)');
    await page.screenshot({ path: '/tmp/large-room-phone.png' });
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await expect(lastTile).toBeVisible();
    await expectInViewport(page, 'Mute microphone');
    await expectInViewport(page, 'Leave room');
    await page.context().close();
  });
});
