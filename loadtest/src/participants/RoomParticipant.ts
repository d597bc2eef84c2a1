/**
 * A participant in a group room, through the app as a person arriving by the room's link: the
 * token is already in localStorage (Generator.seat), `/rooms/<id>` joins by itself; joined when
 * the voice panel says connected, failed with the app's own error text when the room screen
 * shows one (wrong password prompt, full room, no such room...). Listeners then mute through the
 * panel's button, and everyone blanks their page so it stops painting.
 */
import type { Page } from 'playwright-core';
import type { Generator } from './Generator.ts';
import { type Account, MUTE_BUTTON, Participant, VOICE_PANEL } from './Participant.ts';
import { within } from './timeouts.ts';

/** The room screen's error (FormAlert) when the join failed, and the password prompt of a locked room. */
const ROOM_ERROR = '.room-page__away [role="alert"]';
const PASSWORD_PROMPT = 'dialog[open] input[type="password"]';
const CONNECTED = `${VOICE_PANEL}[data-status="connected"]`;
/** Join click → connected: several media-server round trips, slower on a loaded service. */
export const JOIN_TIMEOUT_MS = 45_000;
const MUTE_TIMEOUT_MS = 15_000;

export interface RoomJoin {
  generator: Generator;
  account: Account;
  roomId: string;
  role: 'speaker' | 'listener';
  /** In a browser of its own whose network is impaired (see Generator.seat). */
  impaired?: boolean;
}

/**
 * Opens a page for `account` and joins `roomId`. Never throws for a failed join: the
 * participant comes back with `error` set (the app's text where it showed one).
 */
export async function joinRoom({
  generator,
  account,
  roomId,
  role,
  impaired,
}: RoomJoin): Promise<Participant> {
  const seat = await generator.seat(role, account.token, impaired);
  const participant = Participant.open(account, role, seat);
  const { page } = participant;
  try {
    participant.markStart();
    await page.goto(`/rooms/${encodeURIComponent(roomId)}`, { waitUntil: 'commit' });
    const outcome = await page
      .locator(CONNECTED)
      .or(page.locator(ROOM_ERROR))
      .or(page.locator(PASSWORD_PROMPT))
      .first()
      .waitFor({ timeout: JOIN_TIMEOUT_MS })
      .then(() => 'shown' as const)
      .catch(() => 'timeout' as const);
    if (outcome === 'timeout') {
      participant.fail(`Not in the room within ${JOIN_TIMEOUT_MS / 1000} s${await whereStuck(page)}`);
      return participant;
    }
    if (await page.locator(CONNECTED).count()) {
      participant.markJoined();
    } else if (await page.locator(PASSWORD_PROMPT).count()) {
      // The tool has no password to give: the prompt's own title says what the app asks.
      const title = await page.locator('dialog[open] .dialog__title').first().textContent();
      participant.fail(title?.trim() || 'The room asks for a password');
      return participant;
    } else {
      participant.fail((await page.locator(ROOM_ERROR).first().innerText()).trim());
      return participant;
    }
    if (role === 'listener') await muteAndBlank(page);
    else await blank(page);
  } catch (error) {
    participant.fail(error instanceof Error ? error.message : String(error));
  }
  return participant;
}

/**
 * Mutes through the voice panel, then hides the document: layout and paint stop, audio plays
 * on, and the page says it is hidden, as a tab in the background would (headless pages are
 * always visible): the app's own voice meter then sleeps while muted. Best effort: a
 * listener's microphone is silent, so one the app could not mute in time still sends nothing
 * audible, and it stays in the room.
 */
async function muteAndBlank(page: Page): Promise<void> {
  const mute = page.locator(MUTE_BUTTON);
  await mute
    .getAttribute('aria-pressed', { timeout: MUTE_TIMEOUT_MS })
    .then((pressed) => (pressed === 'true' ? undefined : mute.click({ timeout: MUTE_TIMEOUT_MS })))
    .catch(() => {});
  await within(
    page.evaluate(() => {
      document.documentElement.style.display = 'none';
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    }),
    MUTE_TIMEOUT_MS,
    undefined,
  );
}

/** A speaker's page stops painting too; it stays visible, so its voice meter keeps the gate open. */
async function blank(page: Page): Promise<void> {
  await within(
    page.evaluate(() => {
      document.documentElement.style.display = 'none';
    }),
    MUTE_TIMEOUT_MS,
    undefined,
  );
}

/** Where a page that never joined is: the URL (e.g. sent to /login: the token was refused) and any alert. */
async function whereStuck(page: Page): Promise<string> {
  const path = new URL(page.url()).pathname;
  const alert = await page
    .locator('[role="alert"]')
    .first()
    .innerText({ timeout: 500 })
    .catch(() => '');
  return `: at ${path}${alert ? `, "${alert.trim()}"` : ''}`;
}
