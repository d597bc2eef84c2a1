/**
 * Microphone and speaker pickers, and the microphone test (issue 19, item 5), in real Chromium
 * with its fake devices (`--use-fake-device-for-media-stream` lists a default and two more of
 * each: "Fake Audio Input 1/2", "Fake Audio Output 1/2"). In a room with two people, Alice
 * switches her microphone and Bob keeps hearing her; she switches her speaker and keeps
 * hearing Bob; her choice survives a reload, and a remembered microphone that is gone gives
 * way to the default with a notice. In a one-to-one call a switched microphone keeps both
 * voices flowing. The test plays your voice back with the feedback warning and a moving meter.
 *
 * Which device a capture came from is read from the captures themselves: an init script keeps
 * every getUserMedia stream of the page, and the test reads the labels of the live ones.
 */
import path from 'node:path';
import type { BrowserContext, Page } from '@playwright/test';
import {
  apiCall,
  audioStats,
  befriend,
  type CallBrowser,
  createPerson,
  expectHearing,
  joinFromList,
  openDashboardAs,
  openRooms,
  twoInARoom,
  waitForAudioGrowth,
} from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';
import { expectAccessible } from '../support/a11y.ts';
import { expect, test } from '../support/callBrowser.ts';

const CAPTURES = '__e2eCaptures';
const FAKE_INPUTS = ['Fake Audio Input 1', 'Fake Audio Input 2'];
const FAKE_OUTPUTS = ['Fake Audio Output 1', 'Fake Audio Output 2'];
/** Enough received audio to say a voice is coming through, not just packets of silence. */
const SPEECH = { bytes: 4000, energy: 0.02, timeoutMs: 15_000 };

/**
 * Runs in the page before its scripts: every getUserMedia stream is kept in `window[key]`, and
 * every gain node in `window[key + 'Gains']`.
 */
function recordCaptures(key: string): void {
  const streams: MediaStream[] = [];
  Object.defineProperty(window, key, { value: streams });
  const gains: GainNode[] = [];
  Object.defineProperty(window, `${key}Gains`, { value: gains });
  const createGain = BaseAudioContext.prototype.createGain;
  BaseAudioContext.prototype.createGain = function (this: BaseAudioContext) {
    const node = createGain.call(this);
    gains.push(node);
    return node;
  };
  const devices = navigator.mediaDevices;
  if (!devices) return;
  const native = devices.getUserMedia.bind(devices);
  devices.getUserMedia = async (constraints) => {
    const stream = await native(constraints);
    streams.push(stream);
    return stream;
  };
}

async function watchCaptures(context: BrowserContext): Promise<void> {
  await context.addInitScript(recordCaptures, CAPTURES);
}

/** The device labels of the page's live microphone captures. */
function liveCaptures(page: Page): Promise<string[]> {
  return page.evaluate(
    (key) =>
      ((window as unknown as Record<string, MediaStream[]>)[key] ?? [])
        .flatMap((stream) => stream.getAudioTracks())
        .filter((track) => track.readyState === 'live')
        .map((track) => track.label),
    CAPTURES,
  );
}

const voicePanel = (page: Page) => page.getByRole('region', { name: 'Voice', exact: true });
const settingsDialog = (page: Page) => page.getByRole('dialog', { name: 'Voice settings' });
const microphonePicker = (page: Page) => settingsDialog(page).getByLabel('Microphone', { exact: true });
const speakerPicker = (page: Page) => settingsDialog(page).getByLabel('Speaker', { exact: true });

async function openSettings(page: Page): Promise<void> {
  await voicePanel(page).getByRole('button', { name: 'Voice settings' }).click();
  await expect(settingsDialog(page)).toBeVisible();
}

async function closeSettings(page: Page): Promise<void> {
  await settingsDialog(page).getByRole('button', { name: 'Done' }).click();
  await expect(settingsDialog(page)).toBeHidden();
}

/** The option texts of a picker, in order. */
function optionsOf(picker: ReturnType<typeof microphonePicker>): Promise<string[]> {
  return picker.locator('option').allTextContents();
}

/** The output every room audio element plays to ('' = the default). */
function roomSinks(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLAudioElement & { sinkId: string }>('audio[data-peer-id]')].map(
      (element) => element.sinkId,
    ),
  );
}

/** The gains of the page's gain nodes whose context still runs. */
function runningGains(page: Page): Promise<number[]> {
  return page.evaluate(
    (key) =>
      ((window as unknown as Record<string, GainNode[]>)[`${key}Gains`] ?? [])
        .filter((node) => node.context.state === 'running')
        .map((node) => Math.round(node.gain.value * 1000) / 1000),
    CAPTURES,
  );
}

/** Waits until the only live capture of `page` is the microphone `label`. */
async function expectCapturing(page: Page, label: string): Promise<void> {
  await expect.poll(() => liveCaptures(page), { timeout: 15_000 }).toEqual([label]);
}

test('room: the pickers list the fake devices; switching microphone and speaker keeps the voices flowing; the choice is remembered, and a gone microphone gives way to the default', async ({
  baseURL,
  launchCallBrowser,
}, testInfo) => {
  if (!baseURL) throw new Error('no baseURL');
  // Two browsers with real audio, two reloads, on a two-core machine.
  test.setTimeout(240_000);
  const { alice, bob, a, b } = await twoInARoom(baseURL, launchCallBrowser, 'Devices', {
    prepare: (browser) => watchCaptures(browser.context),
  });
  await expectCapturing(a.page, 'Fake Default Audio Input');

  // The pickers: "System default" first, then Chromium's fake devices, nothing chosen yet.
  await openSettings(a.page);
  await expect.poll(() => optionsOf(microphonePicker(a.page))).toEqual(['System default', ...FAKE_INPUTS]);
  await expect.poll(() => optionsOf(speakerPicker(a.page))).toEqual(['System default', ...FAKE_OUTPUTS]);
  await expect(microphonePicker(a.page)).toHaveValue('');
  await expect(speakerPicker(a.page)).toHaveValue('');
  await screenshotDialog(a.page, testInfo.outputDir, 'dark');

  // Another microphone, live: the capture moves to it, the old one stops, Bob still hears Alice.
  await microphonePicker(a.page).selectOption({ label: 'Fake Audio Input 1' });
  await expectCapturing(a.page, 'Fake Audio Input 1');
  await expectHearing(b.page, [alice]);
  await expect(voicePanel(a.page)).toContainText('Voice connected');

  // Another speaker: every room element plays to it, and Alice still hears Bob.
  await speakerPicker(a.page).selectOption({ label: 'Fake Audio Output 2' });
  const output = await speakerPicker(a.page).inputValue();
  expect(output).not.toBe('');
  await expect.poll(() => roomSinks(a.page)).toEqual([output]);
  await expectHearing(a.page, [bob]);
  await closeSettings(a.page);

  // Remembered in this browser: after a reload the room comes back with the same devices.
  const chosenInput = await a.page.evaluate(() => localStorage.getItem('audioInputDevice'));
  expect(chosenInput).toBeTruthy();
  await a.page.reload();
  await expect(voicePanel(a.page)).toContainText('Voice connected', { timeout: 30_000 });
  await expectCapturing(a.page, 'Fake Audio Input 1');
  await expect.poll(() => roomSinks(a.page), { timeout: 15_000 }).toEqual([output]);
  await expectHearing(b.page, [alice], 30_000);
  await expectHearing(a.page, [bob], 30_000);
  await openSettings(a.page);
  await expect(microphonePicker(a.page)).toHaveValue(chosenInput ?? '');
  await expect(speakerPicker(a.page)).toHaveValue(output);
  await closeSettings(a.page);

  // A remembered microphone and speaker that are gone: Bob's capture opens the default
  // microphone, Alice plays on the default output, he is told of both, and they hear each other.
  await b.page.evaluate(() => {
    localStorage.setItem('audioInputDevice', 'a-microphone-unplugged-since');
    localStorage.setItem('audioOutputDevice', 'a-speaker-unplugged-since');
  });
  await b.page.reload();
  await expect(voicePanel(b.page)).toContainText('Voice connected', { timeout: 30_000 });
  const notices = voicePanel(b.page).getByRole('status');
  await expect(notices.filter({ hasText: 'microphone' })).toContainText(
    'Your chosen microphone is not available, so the default microphone is used.',
  );
  await expect(notices.filter({ hasText: 'speaker' })).toContainText(
    'Your chosen speaker is not available, so sound plays on the default output.',
  );
  await expect.poll(() => roomSinks(b.page)).toEqual(['']);
  await b.page.screenshot({ path: path.join(testInfo.outputDir, 'voice-panel-fallback.png') });
  await expectCapturing(b.page, 'Fake Default Audio Input');
  await expectHearing(a.page, [bob], 30_000);
});

test('the microphone test plays your voice back with the feedback warning and a moving meter, follows another microphone, and stops with the dialog', async ({
  baseURL,
  launchCallBrowser,
}, testInfo) => {
  if (!baseURL) throw new Error('no baseURL');
  test.setTimeout(150_000);
  const alice = await createPerson(baseURL, 'Alice');
  const roomName = `Mic test ${Date.now().toString(36)}`;
  await apiCall(baseURL, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: alice.token,
    body: { name: roomName, type: 'public' },
  });
  const a = await launchCallBrowser({ speaker: 'alice', baseURL });
  await watchCaptures(a.context);
  await openRooms(a.page, alice);
  await joinFromList(a.page, roomName);
  await expectCapturing(a.page, 'Fake Default Audio Input');

  await openSettings(a.page);
  const dialog = settingsDialog(a.page);
  const meter = dialog.getByRole('meter', { name: 'Microphone test level' });
  await expect(dialog.getByRole('alert')).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Test microphone' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Use headphones');
  await expect(dialog.getByRole('button', { name: 'Stop test' })).toBeVisible();
  // Its own capture beside the room's; the room keeps its own.
  await expect
    .poll(() => liveCaptures(a.page))
    .toEqual(['Fake Default Audio Input', 'Fake Default Audio Input']);

  // The meter follows the voice: several different levels, some of them speech.
  const levels = new Set<number>();
  await expect
    .poll(
      async () => {
        levels.add(Number(await meter.getAttribute('value')));
        return levels.size >= 3 && Math.max(...levels) > 0.05;
      },
      { timeout: 15_000, intervals: [150] },
    )
    .toBe(true);
  // The playback is the spec's local monitoring: a gain of 0.1.
  expect(await runningGains(a.page)).toContain(0.1);
  await screenshotDialog(a.page, testInfo.outputDir, 'light');

  // Another microphone chosen while it runs: the test moves to it, as the room does.
  await microphonePicker(a.page).selectOption({ label: 'Fake Audio Input 2' });
  await expect
    .poll(() => liveCaptures(a.page), { timeout: 15_000 })
    .toEqual(['Fake Audio Input 2', 'Fake Audio Input 2']);
  await expect(dialog.getByRole('alert')).toContainText('Use headphones');

  await dialog.getByRole('button', { name: 'Stop test' }).click();
  await expect(dialog.getByRole('alert')).toHaveCount(0);
  await expect(meter).toHaveAttribute('value', '0');
  await expectCapturing(a.page, 'Fake Audio Input 2');
  await expect.poll(() => runningGains(a.page)).not.toContain(0.1);

  // Closing the dialog ends a running test.
  await dialog.getByRole('button', { name: 'Test microphone' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Use headphones');
  await closeSettings(a.page);
  await expectCapturing(a.page, 'Fake Audio Input 2');
});

test('call: switching the microphone keeps both voices flowing', async ({ baseURL, launchCallBrowser }) => {
  if (!baseURL) throw new Error('no baseURL');
  test.setTimeout(120_000);
  const alice = await createPerson(baseURL, 'Alice');
  const bob = await createPerson(baseURL, 'Bob');
  await befriend(baseURL, alice, bob);
  const a = await launchCallBrowser({ speaker: 'alice', baseURL });
  const b = await launchCallBrowser({ speaker: 'bob', baseURL });
  await watchCaptures(a.context);
  await openDashboardAs(a.page, alice);
  await openDashboardAs(b.page, bob);
  await startCall(a, b, 'Bob');
  await expectCapturing(a.page, 'Fake Default Audio Input');

  await openSettings(a.page);
  await expect.poll(() => optionsOf(microphonePicker(a.page))).toEqual(['System default', ...FAKE_INPUTS]);
  await microphonePicker(a.page).selectOption({ label: 'Fake Audio Input 2' });
  await expectCapturing(a.page, 'Fake Audio Input 2');
  // The call card's speaker picker is the same one: it shows the same devices.
  await speakerPicker(a.page).selectOption({ label: 'Fake Audio Output 1' });
  const output = await speakerPicker(a.page).inputValue();
  await closeSettings(a.page);
  const callCard = a.page.getByRole('region', { name: 'Call with Bob' });
  await expect(callCard.getByLabel('Speaker', { exact: true })).toHaveValue(output);
  await expect
    .poll(() =>
      a.page.evaluate(
        () =>
          document.querySelector<HTMLAudioElement & { sinkId: string }>('audio[data-sound="call"]')?.sinkId,
      ),
    )
    .toBe(output);

  await waitForAudioGrowth(b.page, SPEECH);
  await waitForAudioGrowth(a.page, SPEECH);
  expect((await audioStats(a.page)).connectionState).toBe('connected');
});

/** Alice calls Bob from the Friends tab (both on their dashboards) and he answers; both hear each other. */
async function startCall(a: CallBrowser, b: CallBrowser, calleeName: string): Promise<void> {
  const friendRow = (page: Page, name: string) =>
    page.getByRole('list', { name: 'Friends' }).getByRole('listitem').filter({ hasText: name });
  for (const browser of [b, a]) await browser.page.getByRole('tab', { name: 'Friends' }).click();
  await expect(friendRow(a.page, calleeName)).toContainText('Online');
  await friendRow(a.page, calleeName)
    .getByRole('button', { name: `Call ${calleeName}` })
    .click();
  await b.page.getByRole('alertdialog').getByRole('button', { name: 'Accept' }).click();
  await expect(a.page.getByRole('region', { name: `Call with ${calleeName}` }).locator('time')).toHaveText(
    /^0:0\d$/,
  );
  await waitForAudioGrowth(a.page, SPEECH);
  await waitForAudioGrowth(b.page, SPEECH);
}

/** The voice settings dialog in `theme`, saved with the test's output for a look, and axe on it. */
async function screenshotDialog(page: Page, dir: string, theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate((chosen) => {
    document.documentElement.dataset.theme = chosen;
  }, theme);
  // A loaded machine is slow to see the dialog hold still: no animations, and more time.
  await settingsDialog(page).screenshot({
    path: path.join(dir, `voice-settings-${theme}.png`),
    animations: 'disabled',
    timeout: 30_000,
  });
  await expectAccessible(page, `the voice settings (${theme})`, '.voice-settings');
}
