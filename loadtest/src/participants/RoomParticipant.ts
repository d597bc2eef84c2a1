/**
 * A participant in a group room, through the app as a person arriving by the room's link: the
 * token is already in localStorage (Generator.seat), `/rooms/<id>` joins by itself; joined when
 * the voice panel says connected, failed with the app's own error text when the room screen
 * shows one (wrong password prompt, full room, no such room...). Listeners then mute through the
 * panel's button, and everyone hides their page (it stops painting and its voice meter sleeps).
 *
 * On a stage (`stage`), the audience has nothing to mute (it sends no voice); a speaker other
 * than the host raises its hand through the panel's button and waits for the host (StageHost) to
 * invite it: on stage when its mute button shows, `stageMs` after the hand went up. The host's
 * page, on stage from the start, keeps painting: it has buttons to press.
 */
import type { Page } from 'playwright-core';
import type { Generator } from './Generator.ts';
import { type Account, hidePage, MUTE_BUTTON, Participant, VOICE_PANEL } from './Participant.ts';

/** The room screen's error (FormAlert) when the join failed, and the password prompt of a locked room. */
const ROOM_ERROR = '.room-page__away [role="alert"]';
const PASSWORD_PROMPT = 'dialog[open] input[type="password"]';
const CONNECTED = `${VOICE_PANEL}[data-status="connected"]`;
/** Join click → connected: several media-server round trips, slower on a loaded service. */
export const JOIN_TIMEOUT_MS = 45_000;
const MUTE_TIMEOUT_MS = 15_000;
/** The panel's hand button in the audience (`rooms.stage.raiseHand` / `lowerHand`, en-US: the generator's locale). */
const RAISE_HAND_OR_LOWER = `${VOICE_PANEL} button:is([aria-label="Raise hand"], [aria-label="Lower hand"])`;
/** How often a speaker waiting for the stage looks at its panel. */
const STAGE_POLL_MS = 250;
/** A hand shown down is raised again after this long (RTC_LIMITS.handRaisesPerSecond allows more). */
const HAND_AGAIN_MS = 3_000;
/** Hand raised → invited by the host: the host invites in turn, each a click or a search. */
export const STAGE_TIMEOUT_MS = 60_000;

export interface RoomJoin {
  generator: Generator;
  account: Account;
  roomId: string;
  role: 'speaker' | 'listener';
  /** In a browser of its own whose network is impaired (see Generator.seat). */
  impaired?: boolean;
  /**
   * The room is a stage: 'host' is on stage from the start and invites the others (StageHost),
   * a 'speaker' raises its hand to be invited, the 'audience' listens. Absent: not a stage.
   */
  stage?: 'host' | 'speaker' | 'audience';
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
  stage,
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
      participant.fail(
        `Not in the room within ${JOIN_TIMEOUT_MS / 1000} s${await whereStuck(page)}${participant.failedRequest}`,
      );
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
      participant.fail(
        `${(await page.locator(ROOM_ERROR).first().innerText()).trim()}${participant.failedRequest}`,
      );
      return participant;
    }
    if (stage === 'audience') await hidePage(page);
    else if (role === 'listener') await muteAndHide(page);
    else if (stage === 'speaker') await takeTheStage(participant);
    else if (stage !== 'host') await hidePage(page);
  } catch (error) {
    participant.fail(error instanceof Error ? error.message : String(error));
  }
  return participant;
}

/**
 * Mutes through the voice panel, then hides the document (see hidePage; headless pages are always
 * visible otherwise). Best effort: a
 * listener's microphone is silent, so one the app could not mute in time still sends nothing
 * audible, and it stays in the room.
 */
async function muteAndHide(page: Page): Promise<void> {
  const mute = page.locator(MUTE_BUTTON);
  await mute
    .getAttribute('aria-pressed', { timeout: MUTE_TIMEOUT_MS })
    .then((pressed) => (pressed === 'true' ? undefined : mute.click({ timeout: MUTE_TIMEOUT_MS })))
    .catch(() => {});
  await hidePage(page);
}

/**
 * Raises the hand through the voice panel and waits for the host's invitation: on stage when the
 * panel shows the mute button in place of the hand, `stageMs` after the first press. A hand the
 * page shows down again (the request failed, or a moderator lowered it) is raised again, at most
 * every HAND_AGAIN_MS, as a person would. Fails the participant when no invitation came within
 * STAGE_TIMEOUT_MS, saying whether its hand was up at the end.
 */
async function takeTheStage(participant: Participant): Promise<void> {
  const { page } = participant;
  const hand = page.locator(RAISE_HAND_OR_LOWER);
  const deadline = Date.now() + STAGE_TIMEOUT_MS;
  let raisedAt: number | null = null;
  let pressedAt = 0;
  let up = false;
  while (Date.now() < deadline) {
    if ((await page.locator(MUTE_BUTTON).count()) > 0) {
      participant.stageMs = Date.now() - (raisedAt ?? Date.now());
      await hidePage(page);
      return;
    }
    // Null when the hand is gone: the page went on stage since the look above.
    const pressed = await hand.getAttribute('aria-pressed', { timeout: STAGE_POLL_MS }).catch(() => null);
    up = pressed === 'true';
    if (pressed === 'false' && Date.now() - pressedAt > HAND_AGAIN_MS) {
      pressedAt = Date.now();
      raisedAt ??= pressedAt;
      // A click the page did not take in time (busy, or the hand went away) is looked at again.
      await hand.click({ timeout: MUTE_TIMEOUT_MS }).catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, STAGE_POLL_MS));
  }
  participant.fail(
    `Not invited to speak within ${STAGE_TIMEOUT_MS / 1000} s of raising a hand (${up ? 'hand up' : 'hand down'} at the end)`,
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
