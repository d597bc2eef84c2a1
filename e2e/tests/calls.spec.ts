/**
 * One-to-one calls between real Chromium browsers: each person's fake microphone plays their
 * own speech recording, and what the other side receives is measured with getStats (bytes and
 * decoded audio energy growing). Ringing in every tab, answer, mute, hang-up and the call
 * history; a tab in the background sparing its voice meter; decline, unavailable, busy, timeout
 * and a refused microphone; the call forced through a real coturn relay; a closed tab or a
 * logout ending the call.
 */
import type { Page } from '@playwright/test';
import {
  audioPacketsSent,
  audioStats,
  befriend,
  type CallBrowser,
  createPerson,
  negotiation,
  type Person,
  waitForAudioGrowth,
} from '@voice/browser-bots';
import type { ApiServer } from '../support/ApiServer.ts';
import { expect, test } from '../support/callBrowser.ts';
import { aliceAndBob, callRegion, friendRow, incoming, openFriends, ring } from '../support/callPage.ts';
import { runningAudioContexts, setPageHidden, trackAudioContexts } from '../support/pageAudio.ts';
import { RelayStack } from '../support/RelayStack.ts';

/** Enough received audio to say a voice is coming through, not just packets of silence. */
const SPEECH = { bytes: 4000, energy: 0.02, timeoutMs: 15_000 };

/** The ringtone element's state in the page (null before it was first played). */
function ringtone(page: Page) {
  return page.evaluate(() => {
    const audio = document.querySelector<HTMLAudioElement>('audio[data-sound="ringtone"]');
    return audio ? { playing: !audio.paused, loop: audio.loop, volume: audio.volume } : null;
  });
}

test.describe('a call between two friends', () => {
  let alice: Person;
  let bob: Person;

  test.beforeEach(async ({ baseURL }) => {
    ({ alice, bob } = await aliceAndBob(baseURL));
  });

  test('rings every tab, connects, carries both voices, mutes, ends, and is in the history', async ({
    baseURL,
    launchCallBrowser,
  }) => {
    const a = await launchCallBrowser({ speaker: 'alice', baseURL });
    const b = await launchCallBrowser({ speaker: 'bob', baseURL });
    await trackAudioContexts(a.page);
    const bSecondTab = await b.context.newPage();
    await openFriends(b.page, bob);
    await openFriends(bSecondTab, bob);
    await openFriends(a.page, alice, [bob]);
    await expect(friendRow(b.page, 'Alice')).toContainText('Online');

    await friendRow(a.page, 'Bob').getByRole('button', { name: 'Call Bob' }).click();
    await expect(callRegion(a.page, 'Bob')).toContainText('Calling…');
    for (const tab of [b.page, bSecondTab]) {
      await expect(incoming(tab)).toContainText('Alice is calling you');
      await expect.poll(() => ringtone(tab)).toEqual({ playing: true, loop: true, volume: 0.8 });
    }

    // While it rings, the caller's offer is at every tab of the callee, each with its answer
    // ready but not set: the caller knows nothing of the callee yet, and no check has run.
    for (const tab of [b.page, bSecondTab])
      await expect
        .poll(() => negotiation(tab))
        .toMatchObject({ signalingState: 'have-remote-offer', localDescription: null, checks: 0 });
    expect(await negotiation(a.page)).toMatchObject({
      signalingState: 'have-local-offer',
      remoteDescription: null,
      remoteCandidates: 0,
      checks: 0,
    });

    await incoming(b.page).getByRole('button', { name: 'Accept' }).click();
    // The other tab stops ringing: the call was answered elsewhere.
    await expect(incoming(bSecondTab)).toBeHidden();
    await expect.poll(async () => (await ringtone(bSecondTab))?.playing).toBe(false);
    await expect.poll(async () => (await ringtone(b.page))?.playing).toBe(false);

    // Both connected, the duration running, each hearing the other's recording.
    await expect(callRegion(a.page, 'Bob').locator('time')).toHaveText(/^0:0\d$/);
    await expect(callRegion(b.page, 'Alice').locator('time')).toHaveText(/^0:0\d$/);
    await waitForAudioGrowth(a.page, SPEECH);
    await waitForAudioGrowth(b.page, SPEECH);
    for (const page of [a.page, b.page]) {
      const stats = await audioStats(page);
      expect(stats.mimeType).toBe('audio/opus');
      expect(stats.sdpFmtpLine).toContain('useinbandfec=1');
      expect(stats.sdpFmtpLine).toContain('usedtx=1');
    }
    // Friends see both in a call.
    await expect(friendRow(a.page, 'Bob')).toContainText('In a call');

    // Alice's tab in the background: her voice meter sleeps (nothing shows it, and with the
    // default settings no gate needs her level), Bob hears her on; shown, it runs again.
    const awake = await runningAudioContexts(a.page);
    expect(awake).toBeGreaterThan(0);
    await setPageHidden(a.page, true);
    await expect.poll(() => runningAudioContexts(a.page)).toBe(awake - 1);
    await waitForAudioGrowth(b.page, SPEECH);
    await setPageHidden(a.page, false);
    await expect.poll(() => runningAudioContexts(a.page)).toBe(awake);

    // Alice mutes: Bob's received energy stops growing; unmuted, it grows again.
    await callRegion(a.page, 'Bob').getByRole('button', { name: 'Mute microphone' }).click();
    await expect(
      callRegion(a.page, 'Bob').getByRole('button', { name: 'Unmute microphone' }),
    ).toHaveAttribute('aria-pressed', 'true');
    await b.page.waitForTimeout(1000); // what was already on its way
    const mutedFrom = await audioStats(b.page);
    const sentFrom = await audioPacketsSent(a.page);
    await b.page.waitForTimeout(3000);
    const mutedTo = await audioStats(b.page);
    expect(mutedTo.totalAudioEnergy - mutedFrom.totalAudioEnergy).toBeLessThan(0.001);
    // Muted, her page sends nothing at all (not even Opus DTX's silence, about 7 packets a second).
    expect(await audioPacketsSent(a.page)).toBe(sentFrom);
    // Bob sees that she muted herself.
    await expect(callRegion(b.page, 'Alice').getByText('Alice is muted')).toBeVisible();
    await callRegion(a.page, 'Bob').getByRole('button', { name: 'Unmute microphone' }).click();
    await waitForAudioGrowth(b.page, SPEECH);
    await expect(callRegion(b.page, 'Alice').getByText('Alice is muted')).toHaveCount(0);

    // Minimized, the call stays as a bar; Alice leaves from it.
    await callRegion(a.page, 'Bob').getByRole('button', { name: 'Minimize call' }).click();
    await expect(callRegion(a.page, 'Bob').getByRole('button', { name: 'Show call' })).toBeVisible();
    await callRegion(a.page, 'Bob').getByRole('button', { name: 'Leave call' }).click();
    await expect(callRegion(a.page, 'Bob')).toBeHidden();
    await expect(callRegion(b.page, 'Alice')).toBeHidden();
    await expect(friendRow(a.page, 'Bob')).toContainText('Online');

    // The Calls tab lists it with its duration.
    await a.page.getByRole('tab', { name: 'Calls' }).click();
    const aliceCall = a.page.getByRole('list', { name: 'Recent calls' }).getByRole('listitem').first();
    await expect(aliceCall).toContainText('Bob');
    await expect(aliceCall).toContainText('Outgoing');
    await expect(aliceCall).toContainText(/0:\d\d/);
    await b.page.getByRole('tab', { name: 'Calls' }).click();
    const bobCall = b.page.getByRole('list', { name: 'Recent calls' }).getByRole('listitem').first();
    await expect(bobCall).toContainText('Alice');
    await expect(bobCall).toContainText('Incoming');
  });

  test('declined: the caller sees "Call was declined"', async ({ baseURL, launchCallBrowser }) => {
    const a = await launchCallBrowser({ baseURL });
    const b = await launchCallBrowser({ baseURL });
    await openFriends(b.page, bob);
    await openFriends(a.page, alice, [bob]);
    await ring(a.page, b.page, 'Bob');
    await incoming(b.page).getByRole('button', { name: 'Decline' }).click();
    await expect(a.page.getByRole('status').filter({ hasText: 'Call was declined' })).toBeVisible();
    await expect(callRegion(a.page, 'Bob')).toBeHidden();
    await expect(incoming(b.page)).toBeHidden();
    await expect.poll(async () => (await ringtone(b.page))?.playing).toBe(false);
  });

  test('Call clicked before the call machinery has loaded: it rings all the same once loaded', async ({
    baseURL,
    launchCallBrowser,
  }) => {
    const a = await launchCallBrowser({ baseURL });
    const b = await launchCallBrowser({ baseURL });
    await openFriends(b.page, bob);
    // Alice's page gets its call code (a chunk loaded on demand) only after she clicked, as a
    // slow machine or network once gave it to her: the click used to do nothing at all.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked = false;
    await a.page.route(/\/assets\/callRuntime-[^/]*\.js$/, async (route) => {
      asked = true;
      await released;
      await route.continue();
    });
    await openFriends(a.page, alice, [bob]);
    await expect.poll(() => asked).toBe(true);
    await friendRow(a.page, 'Bob').getByRole('button', { name: 'Call Bob' }).click();
    release();
    await expect(incoming(b.page)).toBeVisible();
    await expect(callRegion(a.page, 'Bob')).toBeVisible();
    await incoming(b.page).getByRole('button', { name: 'Decline' }).click();
    await expect(a.page.getByRole('status').filter({ hasText: 'Call was declined' })).toBeVisible();
  });

  test('a friend with no open tab: "User is unavailable"', async ({ baseURL, launchCallBrowser }) => {
    const a = await launchCallBrowser({ baseURL });
    await openFriends(a.page, alice);
    await friendRow(a.page, 'Bob').getByRole('button', { name: 'Call Bob' }).click();
    await expect(a.page.getByRole('status').filter({ hasText: 'User is unavailable' })).toBeVisible();
    await expect(callRegion(a.page, 'Bob')).toBeHidden();
  });

  test('a friend already in a call (ringing): "User is busy"', async ({ baseURL, launchCallBrowser }) => {
    if (!baseURL) throw new Error('no baseURL');
    const carol = await createPerson(baseURL, 'Carol');
    await befriend(baseURL, carol, bob);
    const a = await launchCallBrowser({ baseURL });
    const b = await launchCallBrowser({ baseURL });
    const c = await a.browser.newContext({ baseURL });
    const carolPage = await c.newPage();
    await openFriends(b.page, bob);
    await openFriends(carolPage, carol, [bob]);
    await ring(carolPage, b.page, 'Bob');
    await openFriends(a.page, alice, [bob]);
    await friendRow(a.page, 'Bob').getByRole('button', { name: 'Call Bob' }).click();
    await expect(a.page.getByRole('status').filter({ hasText: 'User is busy' })).toBeVisible();
    // Carol's call is untouched.
    await expect(incoming(b.page)).toContainText('Carol is calling you');
    await expect(callRegion(carolPage, 'Bob')).toContainText('Calling…');
  });

  test("the callee's microphone refused: the spec's message, and no call starts", async ({
    baseURL,
    launchCallBrowser,
  }) => {
    const a = await launchCallBrowser({ baseURL });
    const b = await launchCallBrowser({ baseURL, microphone: 'refused' });
    await openFriends(b.page, bob);
    await openFriends(a.page, alice, [bob]);
    await ring(a.page, b.page, 'Bob');
    await incoming(b.page).getByRole('button', { name: 'Accept' }).click();
    const prompt = b.page.getByRole('dialog', { name: 'Microphone permission required for calls' });
    await expect(prompt).toContainText(
      'Microphone permission denied. Please allow microphone access in your browser settings.',
    );
    // No accept went out: Alice is still calling, Bob's call view never opened.
    await expect(callRegion(b.page, 'Alice')).toBeHidden();
    await expect(callRegion(a.page, 'Bob')).toContainText('Calling…');
    await prompt.getByRole('button', { name: 'OK' }).click();
    await expect(prompt).toBeHidden();
  });

  test("the caller's microphone refused: the prompt, and the friend's phone never rings", async ({
    baseURL,
    launchCallBrowser,
  }) => {
    const a = await launchCallBrowser({ baseURL, microphone: 'refused' });
    const b = await launchCallBrowser({ baseURL });
    await openFriends(b.page, bob);
    await openFriends(a.page, alice, [bob]);
    await friendRow(a.page, 'Bob').getByRole('button', { name: 'Call Bob' }).click();
    await expect(
      a.page.getByRole('dialog', { name: 'Microphone permission required for calls' }),
    ).toBeVisible();
    await expect(callRegion(a.page, 'Bob')).toBeHidden();
    await b.page.waitForTimeout(1000);
    await expect(incoming(b.page)).toBeHidden();
  });

  test('closing the tab ends the call for the other side; so does a logout', async ({
    baseURL,
    launchCallBrowser,
  }) => {
    const a = await launchCallBrowser({ baseURL });
    const b = await launchCallBrowser({ baseURL });
    await openFriends(b.page, bob);
    await openFriends(a.page, alice, [bob]);

    await ring(a.page, b.page, 'Bob');
    await incoming(b.page).getByRole('button', { name: 'Accept' }).click();
    await expect(callRegion(a.page, 'Bob').locator('time')).toBeVisible();
    await b.page.close({ runBeforeUnload: true });
    await expect(callRegion(a.page, 'Bob')).toBeHidden();

    const bobAgain = await b.context.newPage();
    await openFriends(bobAgain, bob, [alice]);
    await ring(a.page, bobAgain, 'Bob');
    await incoming(bobAgain).getByRole('button', { name: 'Accept' }).click();
    await expect(callRegion(bobAgain, 'Alice').locator('time')).toBeVisible();
    await a.page.getByRole('button', { name: 'Log out' }).click();
    await expect(a.page).toHaveURL(/\/login$/);
    await expect(callRegion(bobAgain, 'Alice')).toBeHidden();
  });
});

test.describe('with a relay-only TURN server and a short ring timeout', () => {
  const RING_TIMEOUT_MS = 4000;
  let relay: RelayStack;
  let api: ApiServer;
  let alice: Person;
  let bob: Person;

  // biome-ignore lint/correctness/noEmptyPattern: Playwright hooks must destructure their fixtures.
  test.beforeAll(async ({}, testInfo) => {
    relay = await RelayStack.start(testInfo, 'calls-relay', {
      CALL_RING_TIMEOUT_MS: String(RING_TIMEOUT_MS),
    });
    api = relay.api;
  });

  test.afterAll(async () => {
    await relay?.stop();
  });

  test.beforeEach(async () => {
    ({ alice, bob } = await aliceAndBob(api.url));
  });

  async function openBoth(
    launch: (options: { speaker?: 'alice' | 'bob'; baseURL: string }) => Promise<CallBrowser>,
  ) {
    const a = await launch({ speaker: 'alice', baseURL: api.url });
    const b = await launch({ speaker: 'bob', baseURL: api.url });
    await openFriends(b.page, bob);
    await openFriends(a.page, alice, [bob]);
    return { a, b };
  }

  test('the call relays through coturn, and both voices come through', async ({ launchCallBrowser }) => {
    const { a, b } = await openBoth(launchCallBrowser);
    await ring(a.page, b.page, 'Bob');
    await incoming(b.page).getByRole('button', { name: 'Accept' }).click();
    await waitForAudioGrowth(a.page, SPEECH);
    await waitForAudioGrowth(b.page, SPEECH);
    for (const page of [a.page, b.page]) {
      const stats = await audioStats(page);
      expect(stats.localCandidateType).toBe('relay');
      expect(stats.remoteCandidateType).toBe('relay');
    }
    await callRegion(b.page, 'Alice').getByRole('button', { name: 'Leave call' }).click();
    await expect(callRegion(a.page, 'Bob')).toBeHidden();
  });

  test('nobody answers: "Call timeout", and the ringing stops', async ({ launchCallBrowser }) => {
    const { a, b } = await openBoth(launchCallBrowser);
    await ring(a.page, b.page, 'Bob');
    await expect(a.page.getByRole('status').filter({ hasText: 'Call timeout' })).toBeVisible({
      timeout: RING_TIMEOUT_MS + 5000,
    });
    await expect(incoming(b.page)).toBeHidden();
    await expect.poll(async () => (await ringtone(b.page))?.playing).toBe(false);
    // A missed call for Bob.
    await b.page.getByRole('tab', { name: 'Calls' }).click();
    await expect(
      b.page.getByRole('list', { name: 'Recent calls' }).getByRole('listitem').first(),
    ).toContainText('Missed');
  });
});
