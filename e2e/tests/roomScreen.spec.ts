/**
 * A room's own screen (/rooms/:id) and the voice panel: a shared link joins after sign-in
 * (asking for the password when there is one); the panel, on every page while in the room,
 * keeps mute and leave in the viewport at a desktop's and a phone's size with the room filled
 * (the other members are protoo members of the test, joined through the API like a browser).
 */
import type { Page } from '@playwright/test';
import { apiCall, createPerson, openDashboardAs, type Person } from '@voice/browser-bots';
import { join, TestMember } from '@voice/media-server/testing';
import { type JoinRoomResponse, ROOM_ROUTES } from '@voice/protocol';
import { expect, test } from '../support/fixtures.ts';

const panel = (page: Page) => page.getByRole('region', { name: 'Voice' });
const roomView = (page: Page, name: string) => page.getByRole('region', { name: `Room ${name}` });

async function newRoom(baseURL: string, admin: Person, body: Record<string, unknown> = {}) {
  const name = `Screen ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
  const { room } = await apiCall<{ room: { id: string } }>(baseURL, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: admin.token,
    body: { name, type: 'public', ...body },
  });
  return { id: room.id, name };
}

/** `count` people in the room, each a protoo member holding a real /rtc connection. */
async function fillRoom(baseURL: string, roomId: string, count: number): Promise<TestMember[]> {
  const members: TestMember[] = [];
  for (let i = 0; i < count; i++) {
    const person = await createPerson(baseURL, `Guest ${i + 1}`);
    const answer = await apiCall<JoinRoomResponse>(baseURL, ROOM_ROUTES.join(roomId), {
      method: 'POST',
      token: person.token,
      body: {},
    });
    const url = new URL(answer.mediaUrl);
    url.searchParams.set('roomId', roomId);
    url.searchParams.set('peerId', person.id);
    url.searchParams.set('token', answer.roomToken);
    const member = await TestMember.connect(url.toString());
    await join(member);
    members.push(member);
  }
  return members;
}

/** The element lies wholly inside the viewport. */
async function expectInViewport(page: Page, name: string) {
  const box = await panel(page).getByRole('button', { name }).boundingBox();
  const viewport = page.viewportSize();
  expect(box, name).not.toBeNull();
  expect(viewport).not.toBeNull();
  if (!box || !viewport) return;
  expect(box.y, name).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height, name).toBeLessThanOrEqual(viewport.height);
  expect(box.x + box.width, name).toBeLessThanOrEqual(viewport.width);
}

test.describe('the room screen', () => {
  test('a shared link opened signed out goes through sign-in and back, and joins', async ({
    page,
    baseURL,
  }) => {
    const alice = await createPerson(baseURL as string, 'Alice');
    const bob = await createPerson(baseURL as string, 'Bob');
    const room = await newRoom(baseURL as string, alice);

    await page.goto(`/rooms/${room.id}`);
    await expect(page).toHaveURL(new RegExp(`/login\\?next=%2Frooms%2F${room.id}$`));
    await page.getByLabel('Username or email').fill(bob.username);
    await page.getByLabel('Password', { exact: true }).fill(`pw-${bob.username}-Secret`);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await expect(page).toHaveURL(new RegExp(`/rooms/${room.id}$`));
    await expect(roomView(page, room.name)).toBeVisible();
    await expect(panel(page).getByText('Voice connected')).toBeVisible();
    await expect(panel(page).getByRole('link', { name: room.name })).toBeVisible();
    await expect(page).toHaveTitle(`${room.name} · Voice`);
  });

  test('a link to another site is never followed after sign-in', async ({ page, baseURL }) => {
    const bob = await createPerson(baseURL as string, 'Bob');
    await page.goto('/login?next=%2F%2Fevil.example%2Fx');
    await page.getByLabel('Username or email').fill(bob.username);
    await page.getByLabel('Password', { exact: true }).fill(`pw-${bob.username}-Secret`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test('a link to a room with a password asks for it, then joins', async ({ page, baseURL }) => {
    const alice = await createPerson(baseURL as string, 'Alice');
    const bob = await createPerson(baseURL as string, 'Bob');
    const room = await newRoom(baseURL as string, alice, { password: 'open sesame' });
    await openDashboardAs(page, bob);
    await page.goto(`/rooms/${room.id}`);
    const dialog = page.getByRole('dialog');
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Room password').fill('wrong one');
    await dialog.getByRole('button', { name: 'Join' }).click();
    await expect(dialog.getByRole('alert')).toBeVisible();
    await dialog.getByLabel('Room password').fill('open sesame');
    await dialog.getByRole('button', { name: 'Join' }).click();
    await expect(roomView(page, room.name)).toBeVisible();
  });

  test('a dropped connection on the way in is asked again; one that stays down leaves a Join button', async ({
    page,
    baseURL,
  }) => {
    const alice = await createPerson(baseURL as string, 'Alice');
    const bob = await createPerson(baseURL as string, 'Bob');
    const room = await newRoom(baseURL as string, alice);
    await openDashboardAs(page, bob);
    const lookup = `**/api/rooms/${room.id}`;
    const admit = `**/api/rooms/${room.id}/join`;

    // The lookup and the join each lose their first connection: the person is in all the same.
    const dropped: string[] = [];
    for (const pattern of [lookup, admit]) {
      await page.route(
        pattern,
        (route) => {
          dropped.push(`${route.request().method()} ${new URL(route.request().url()).pathname}`);
          return route.abort('connectionreset');
        },
        { times: 1 },
      );
    }
    await page.goto(`/rooms/${room.id}`);
    await expect(roomView(page, room.name)).toBeVisible();
    await expect(panel(page)).toHaveAttribute('data-status', 'connected', { timeout: 20_000 });
    expect(dropped).toEqual([`GET /api/rooms/${room.id}`, `POST /api/rooms/${room.id}/join`]);
    await panel(page).getByRole('button', { name: 'Leave room' }).click();
    await expect(panel(page)).toHaveCount(0);

    // The network stays down: the app says so, and its Join button works once it is back.
    await page.route(lookup, (route) => route.abort('connectionreset'));
    await page.goto('/dashboard');
    await page.goto(`/rooms/${room.id}`);
    await expect(page.locator('.room-page__away').getByRole('alert')).toHaveText(
      'Network error. Check your connection and try again',
      {
        timeout: 20_000,
      },
    );
    await page.unroute(lookup);
    await page.getByRole('button', { name: 'Join', exact: true }).click();
    await expect(panel(page)).toHaveAttribute('data-status', 'connected', { timeout: 20_000 });
  });

  test("the voice panel reads the connection's quality while the page shows, not in a background tab", async ({
    page,
    baseURL,
  }) => {
    // Every getStats() of the page counted: the app's quality is its only caller here.
    await page.addInitScript(() => {
      const counted = window as unknown as { statsCalls: number };
      counted.statsCalls = 0;
      const getStats = RTCPeerConnection.prototype.getStats;
      RTCPeerConnection.prototype.getStats = function (this: RTCPeerConnection, ...args: []) {
        counted.statsCalls += 1;
        return getStats.apply(this, args);
      };
    });
    const show = (state: 'hidden' | 'visible') =>
      page.evaluate((visibility) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);
    const calls = () => page.evaluate(() => (window as unknown as { statsCalls: number }).statsCalls);

    const alice = await createPerson(baseURL as string, 'Alice');
    const room = await newRoom(baseURL as string, alice);
    await openDashboardAs(page, alice);
    await page.goto(`/rooms/${room.id}`);
    await expect(panel(page)).toHaveAttribute('data-status', 'connected', { timeout: 20_000 });
    const badge = panel(page).locator('.voice-panel__quality');
    await expect(badge).toHaveAttribute('data-quality', 'good', { timeout: 10_000 });
    await expect.poll(calls).toBeGreaterThanOrEqual(4);

    await show('hidden');
    const hiddenAt = await calls();
    // Two and a half of the app's 2 s intervals: not one read.
    await page.waitForTimeout(5_000);
    expect(await calls()).toBe(hiddenAt);
    await expect(badge).toHaveAttribute('data-quality', 'good');

    await show('visible');
    await expect.poll(calls).toBeGreaterThan(hiddenAt);
    await expect(badge).toHaveAttribute('data-quality', 'good');
  });

  test('a room that does not exist says so', async ({ page, baseURL }) => {
    const bob = await createPerson(baseURL as string, 'Bob');
    await openDashboardAs(page, bob);
    await page.goto('/rooms/00000000-0000-4000-8000-000000000000');
    await expect(page.getByRole('alert')).toBeVisible();
    await expect(panel(page)).toHaveCount(0);
  });

  test('the voice panel follows you to the dashboard: back to the room, M mutes, leave', async ({
    page,
    baseURL,
  }) => {
    const alice = await createPerson(baseURL as string, 'Alice');
    const room = await newRoom(baseURL as string, alice);
    await openDashboardAs(page, alice);
    await page.getByRole('tab', { name: 'Rooms' }).click();
    await page.getByRole('button', { name: `Join ${room.name}` }).click();
    // Joining opens the room's screen.
    await expect(page).toHaveURL(new RegExp(`/rooms/${room.id}$`));
    await expect(roomView(page, room.name)).toBeVisible();

    await page.getByRole('link', { name: 'Back to the dashboard' }).first().click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(panel(page).getByText('Voice connected')).toBeVisible();
    await page.locator('body').press('m');
    await expect(panel(page).getByRole('button', { name: 'Unmute microphone' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await page.locator('body').press('m');
    const mute = panel(page).getByRole('button', { name: /^(Mute|Unmute) microphone$/ });
    await expect(mute).toHaveAttribute('aria-pressed', 'false');
    // Deafening mutes the microphone too; undeafening gives back the mute there was.
    await panel(page).getByRole('button', { name: 'Deafen' }).click();
    await expect(mute).toHaveAttribute('aria-pressed', 'true');
    await panel(page).getByRole('button', { name: 'Undeafen' }).click();
    await expect(mute).toHaveAttribute('aria-pressed', 'false');
    await page.locator('body').press('m');
    await panel(page).getByRole('button', { name: 'Deafen' }).click();
    await panel(page).getByRole('button', { name: 'Undeafen' }).click();
    await expect(mute).toHaveAttribute('aria-pressed', 'true');
    // The Rooms tab marks the room you are in; its button opens the room's screen.
    await page.getByRole('tab', { name: 'Rooms' }).click();
    await page.getByRole('button', { name: `Open ${room.name}` }).click();
    await expect(page).toHaveURL(new RegExp(`/rooms/${room.id}$`));
    await expect(roomView(page, room.name)).toBeVisible();

    // Renamed elsewhere (another tab of hers, here the API): the room's screen and the voice
    // panel show the new name at once.
    const renamed = `${room.name} renamed`;
    await apiCall(baseURL as string, ROOM_ROUTES.room(room.id), {
      method: 'PATCH',
      token: alice.token,
      body: { name: renamed },
    });
    await expect(roomView(page, renamed)).toBeVisible();
    await expect(panel(page).getByRole('link', { name: renamed })).toBeVisible();

    // A reload on another page within 30 s takes you back into the room.
    await page.getByRole('link', { name: 'Back to the dashboard' }).first().click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.reload();
    await expect(page).toHaveURL(new RegExp(`/rooms/${room.id}$`));
    await expect(panel(page).getByText('Voice connected')).toBeVisible();

    await panel(page).getByRole('button', { name: 'Leave room' }).click();
    await expect(panel(page)).toHaveCount(0);
    await expect(roomView(page, renamed)).toHaveCount(0);
    await expect(page.getByText(`You are not in ${renamed}.`)).toBeVisible();
  });

  for (const { width, height, people } of [
    { width: 1280, height: 800, people: 8 },
    { width: 390, height: 844, people: 5 },
  ]) {
    test(`mute and leave stay in view at ${width}×${height} with ${people} people`, async ({
      page,
      baseURL,
    }, testInfo) => {
      await page.setViewportSize({ width, height });
      const alice = await createPerson(baseURL as string, 'Alice');
      const room = await newRoom(baseURL as string, alice);
      const members = await fillRoom(baseURL as string, room.id, people - 1);
      try {
        await openDashboardAs(page, alice);
        await page.goto(`/rooms/${room.id}`);
        await expect(page.locator('li.participant')).toHaveCount(people);
        for (const scroll of ['top', 'bottom'] as const) {
          await page.evaluate(
            (to) => window.scrollTo(0, to === 'top' ? 0 : document.body.scrollHeight),
            scroll,
          );
          await expectInViewport(page, 'Mute microphone');
          await expectInViewport(page, 'Leave room');
        }
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: testInfo.outputPath(`room-${width}x${height}.png`) });
        // On the dashboard as well (in the app: a reload would leave the room). On a phone the
        // way back is with the rooms, behind their button.
        const back = page.getByRole('link', { name: 'Back to the dashboard' });
        if (!(await back.isVisible())) await page.getByRole('button', { name: 'Rooms' }).click();
        await back.click();
        await expect(page).toHaveURL(/\/dashboard$/);
        await expect(panel(page)).toBeVisible();
        await expectInViewport(page, 'Mute microphone');
        await expectInViewport(page, 'Leave room');
      } finally {
        for (const member of members) member.close();
      }
    });
  }
});
