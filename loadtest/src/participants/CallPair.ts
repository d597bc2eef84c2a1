/**
 * A 1:1 call between two friends, through the app: the callee waits on the dashboard, the
 * caller calls from the Friends tab (the friend row's Call button), the callee accepts in the
 * incoming-call dialog. Both clocks start at the Accept click: joinMs is Accept → the voice panel
 * connected, firstAudioMs Accept → the other's voice arriving. Both pages speak, hidden once
 * connected (see hidePage).
 */
import type { Page } from 'playwright-core';
import type { Generator } from './Generator.ts';
import { type Account, hidePage, Participant, VOICE_PANEL } from './Participant.ts';

const CONNECTED = `${VOICE_PANEL}[data-status="connected"]`;
/** Ringing, accepting and the peer connection's ICE over a loaded service. */
const STEP_TIMEOUT_MS = 30_000;

export interface CallPairOptions {
  generator: Generator;
  caller: Account;
  callee: Account;
  /** The callee runs in a browser of its own whose network is impaired. */
  impairedCallee?: boolean;
}

/** The dashboard of the signed-in page, on its Friends tab. */
async function openFriends(page: Page): Promise<void> {
  await page.goto('/dashboard', { waitUntil: 'commit' });
  await page.getByRole('tab', { name: 'Friends' }).click({ timeout: STEP_TIMEOUT_MS });
}

/**
 * Both ends of one call, connected (or with `error` set on the end that failed: the app's text
 * when it showed one). Never throws for a failed call.
 */
export async function startCallPair({
  generator,
  caller,
  callee,
  impairedCallee,
}: CallPairOptions): Promise<Participant[]> {
  const callerSeat = await generator.seat('speaker', caller.token);
  const calleeSeat = await generator.seat('speaker', callee.token, impairedCallee);
  const a = Participant.open(caller, 'caller', callerSeat, callee.id);
  const b = Participant.open(callee, 'callee', calleeSeat, caller.id);
  try {
    await openFriends(b.page);
    await openFriends(a.page);
    const row = a.page
      .getByRole('list', { name: 'Friends' })
      .getByRole('listitem')
      .filter({ hasText: callee.displayName });
    // The callee's page must be online to ring; the row says so once its socket is in.
    await row.filter({ hasText: 'Online' }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await row.getByRole('button', { name: `Call ${callee.displayName}` }).click();
    const accept = b.page.getByRole('alertdialog').getByRole('button', { name: 'Accept' });
    await accept.waitFor({ timeout: STEP_TIMEOUT_MS });
    a.markStart();
    b.markStart();
    await accept.click();
    await Promise.all(
      [a, b].map(async (end) => {
        await end.page.locator(CONNECTED).waitFor({ timeout: STEP_TIMEOUT_MS });
        end.markJoined();
        await hidePage(end.page);
      }),
    );
  } catch (error) {
    const shown = await appError(a.page, b.page);
    const message = shown ?? (error instanceof Error ? error.message : String(error));
    for (const end of [a, b]) if (end.joinMs === null) end.fail(message);
  }
  return [a, b];
}

/** The text of a status or alert either page shows (e.g. "User is busy"), if any. */
async function appError(...pages: Page[]): Promise<string | null> {
  for (const page of pages) {
    const text = await page
      .locator('[role="alert"], .call-card [role="status"]')
      .first()
      .innerText({ timeout: 300 })
      .catch(() => '');
    if (text.trim()) return text.trim();
  }
  return null;
}
