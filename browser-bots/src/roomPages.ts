/**
 * A group room as the room tests drive it through the app: the Rooms tab, a room's view, and
 * two people in a new public room hearing each other.
 */
import { expect, type Page } from '@playwright/test';
import { ROOM_ROUTES } from '@voice/protocol';
import type { CallBrowser, CallBrowserOptions } from './CallBrowser.ts';
import { apiCall, createPerson, openDashboardAs, type Person } from './people.ts';
import { expectHearing } from './roomAudio.ts';

/** Opens `person`'s dashboard on the Rooms tab. */
export async function openRooms(page: Page, person: Person): Promise<void> {
  await openDashboardAs(page, person);
  await page.getByRole('tab', { name: 'Rooms' }).click();
}

/** The view of the room `name` (present while the page is in it). */
export const roomView = (page: Page, name: string) => page.getByRole('region', { name: `Room ${name}` });

/**
 * Clicks the room's Join button in the list and waits until the page is in: its view shows and
 * the voice panel says "Voice connected" (the view shows as soon as the API let you in; the
 * people already there appear once the media server did). Getting in is several round trips to
 * the media server, each with its own deadline; with three browsers already talking on a
 * two-core machine (each a renderer, a software compositor and an audio service: half a core or
 * more in a room) a fourth page's steps wait for the processor, measured past 30 s there, and
 * past 60 s in a CI run on a slower machine.
 */
export async function joinFromList(page: Page, roomName: string): Promise<void> {
  await page.getByRole('button', { name: `Join ${roomName}` }).click();
  await expect(roomView(page, roomName)).toBeVisible({ timeout: 120_000 });
  await expect(page.locator('section.voice-panel')).toHaveAttribute('data-status', 'connected', {
    timeout: 120_000,
  });
}

/** Two people in one room, each in a browser playing their recording, hearing each other. */
export interface TwoInARoom {
  alice: Person;
  bob: Person;
  a: CallBrowser;
  b: CallBrowser;
  roomName: string;
  roomId: string;
}

/**
 * Alice and Bob, each in a browser playing their recording, in a new public room, hearing each
 * other. `prepare` runs on each browser before its first page loads (to add init scripts).
 */
export async function twoInARoom(
  baseURL: string,
  launchCallBrowser: (options: CallBrowserOptions) => Promise<CallBrowser>,
  roomPrefix: string,
  { prepare }: { prepare?: (browser: CallBrowser) => Promise<void> } = {},
): Promise<TwoInARoom> {
  const alice = await createPerson(baseURL, 'Alice');
  const bob = await createPerson(baseURL, 'Bob');
  const roomName = `${roomPrefix} ${Date.now().toString(36)}`;
  const { room } = await apiCall<{ room: { id: string } }>(baseURL, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: alice.token,
    body: { name: roomName, type: 'public' },
  });
  const a = await launchCallBrowser({ speaker: 'alice', baseURL });
  const b = await launchCallBrowser({ speaker: 'bob', baseURL });
  for (const browser of [a, b]) await prepare?.(browser);
  await openRooms(a.page, alice);
  await joinFromList(a.page, roomName);
  await openRooms(b.page, bob);
  await joinFromList(b.page, roomName);
  await expectHearing(a.page, [bob]);
  await expectHearing(b.page, [alice]);
  return { alice, bob, a, b, roomName, roomId: room.id };
}
