/**
 * How a call ends, between two real Chromium browsers: the spec's outcome message with a line
 * naming the person as people say it ("Call was declined" / "Bob declined the call", "Call
 * timeout" / "Bob didn't answer"), and a connected call's "Call ended · 0:05" with who ended
 * it, on both sides, gone by itself after a few seconds.
 */
import type { Page } from '@playwright/test';
import type { Person } from '@voice/browser-bots';
import { CALL_RING_TIMEOUT_MS } from '@voice/protocol';
import { expect, test } from '../support/callBrowser.ts';
import { aliceAndBob, callRegion, incoming, openFriends, ring } from '../support/callPage.ts';

/** The card that follows a call: the live region holding `text`. */
const endCard = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text });

test.describe('how a call ends', () => {
  let alice: Person;
  let bob: Person;

  test.beforeEach(async ({ baseURL }) => {
    ({ alice, bob } = await aliceAndBob(baseURL));
  });

  test('declined: "Call was declined", and "Bob declined the call"', async ({
    baseURL,
    launchCallBrowser,
  }, testInfo) => {
    const a = await launchCallBrowser({ baseURL });
    const b = await launchCallBrowser({ baseURL });
    await openFriends(b.page, bob);
    await openFriends(a.page, alice, [bob]);
    await ring(a.page, b.page, 'Bob');
    await incoming(b.page).getByRole('button', { name: 'Decline' }).click();
    const card = endCard(a.page, 'Call was declined');
    await expect(card).toContainText('Bob declined the call');
    await expect(callRegion(a.page, 'Bob')).toBeHidden();
    await a.page.screenshot({ path: testInfo.outputPath('call-declined-alice.png') });
    // Bob declined it himself: nothing to tell him.
    await expect(endCard(b.page, 'declined')).toHaveCount(0);
  });

  test('a connected call Bob hangs up: "Call ended · 0:0N" and "Bob ended the call", then it goes', async ({
    baseURL,
    launchCallBrowser,
  }, testInfo) => {
    const a = await launchCallBrowser({ speaker: 'alice', baseURL });
    const b = await launchCallBrowser({ speaker: 'bob', baseURL });
    await openFriends(b.page, bob);
    await openFriends(a.page, alice, [bob]);
    await ring(a.page, b.page, 'Bob');
    await incoming(b.page).getByRole('button', { name: 'Accept' }).click();
    // A few seconds of call on Alice's clock, then Bob leaves.
    await expect(callRegion(a.page, 'Bob').locator('time')).toHaveText(/^0:0[3-9]$/, { timeout: 20_000 });
    await callRegion(b.page, 'Alice').getByRole('button', { name: 'Leave call' }).click();

    const aliceCard = endCard(a.page, 'Bob ended the call');
    await expect(aliceCard).toContainText('Call ended');
    await expect(aliceCard.locator('time')).toHaveText(/^0:0[3-9]$/);
    await expect(callRegion(a.page, 'Bob')).toBeHidden();
    const bobCard = endCard(b.page, 'You ended the call');
    await expect(bobCard).toContainText('Call ended');
    await expect(bobCard.locator('time')).toHaveText(/^0:\d\d$/);

    await a.page.screenshot({ path: testInfo.outputPath('call-ended-alice.png') });
    await b.page.screenshot({ path: testInfo.outputPath('call-ended-bob.png') });

    // Like a phone's "call ended" screen it does not stay: gone after a few seconds by itself.
    await expect(aliceCard).toBeHidden({ timeout: 10_000 });
    await expect(bobCard).toBeHidden({ timeout: 10_000 });
  });

  test('nobody answers: "Call timeout", and "Bob didn\'t answer"', async ({ baseURL, launchCallBrowser }) => {
    // The real ring timeout (30 s): this case waits that long.
    test.setTimeout(CALL_RING_TIMEOUT_MS + 60_000);
    const a = await launchCallBrowser({ baseURL });
    const b = await launchCallBrowser({ baseURL });
    await openFriends(b.page, bob);
    await openFriends(a.page, alice, [bob]);
    await ring(a.page, b.page, 'Bob');
    const card = endCard(a.page, 'Call timeout');
    await expect(card).toBeVisible({ timeout: CALL_RING_TIMEOUT_MS + 10_000 });
    await expect(card).toContainText("Bob didn't answer");
    await expect(incoming(b.page)).toBeHidden();
    // Bob is told the callee's way: a missed call from Alice.
    await expect(b.page.getByRole('status').filter({ hasText: 'Missed call from Alice' })).toBeVisible();
  });
});
