/**
 * One voice at a time (issue 19, item 1), with each person's fake microphone playing their own
 * speech recording: Bob is in a room with Alice when Carol calls him. It rings (his friends see
 * him in the room); answering asks "Leave … and answer Carol?", and once he says yes Alice stops
 * receiving his voice within a second while the call carries both voices. Going back into the
 * room from the call asks to end it, and does. Answered in another tab of his, which has no room
 * to leave, the server takes him out of the room all the same.
 */
import type { Page } from '@playwright/test';
import {
  audioStats,
  befriend,
  createPerson,
  expectHearing,
  openDashboardAs,
  roomAudio,
  roomView,
  twoInARoom,
  waitForAudioGrowth,
} from '@voice/browser-bots';
import { expect, test } from '../support/callBrowser.ts';

/** Enough received audio to say a voice is coming through, not just packets of silence. */
const SPEECH = { bytes: 4000, energy: 0.02, timeoutMs: 15_000 };

const friendRow = (page: Page, name: string) =>
  page.getByRole('list', { name: 'Friends' }).getByRole('listitem').filter({ hasText: name });
const callRegion = (page: Page, name: string) => page.getByRole('region', { name: `Call with ${name}` });

/** Asserts that `page` receives no more energy from `member` from 1 s after `since` on. */
async function stoppedHearing(page: Page, memberId: string, since: number): Promise<void> {
  await page.waitForTimeout(Math.max(0, 1000 - (Date.now() - since)));
  // His consumer is gone (no entry), or its energy stands still.
  const from = (await roomAudio(page))[memberId]?.energy ?? null;
  await page.waitForTimeout(2000);
  const to = (await roomAudio(page))[memberId]?.energy ?? null;
  expect(from === null || to === null || to - from < 0.001, `energy ${from} → ${to}`).toBe(true);
}

test('answering a call in a room leaves the room first: the room stops hearing you within 1 s, the call carries both voices', async ({
  baseURL,
  launchCallBrowser,
}) => {
  if (!baseURL) throw new Error('no baseURL');
  // Three browsers with real audio on a two-core machine.
  test.setTimeout(120_000);
  const { alice, bob, a, b, roomName } = await twoInARoom(baseURL, launchCallBrowser, 'Walk Lounge');
  const carol = await createPerson(baseURL, 'Carol');
  await befriend(baseURL, carol, bob);
  const c = await launchCallBrowser({ speaker: 'carol', baseURL });
  await openDashboardAs(c.page, carol);
  await c.page.getByRole('tab', { name: 'Friends' }).click();

  // Carol sees where Bob is, and her call rings him there.
  await expect(friendRow(c.page, 'Bob')).toContainText(`In ${roomName}`);
  await friendRow(c.page, 'Bob').getByRole('button', { name: 'Call Bob' }).click();
  const incoming = b.page.getByRole('alertdialog');
  await expect(incoming).toContainText('Carol is calling you');
  await incoming.getByRole('button', { name: 'Accept' }).click();

  // He is asked first; the room goes on meanwhile.
  const question = b.page.getByRole('dialog', { name: `Leave ${roomName} and answer Carol?` });
  await expect(question).toBeVisible();
  await expect(roomView(b.page, roomName)).toBeVisible();
  await expectHearing(a.page, [bob]);

  await question.getByRole('button', { name: 'Leave and answer' }).click();
  const answered = Date.now();
  await expect(question).toBeHidden();
  await stoppedHearing(a.page, bob.id, answered);
  await expect(a.page.locator('li.participant')).toHaveCount(1);
  await expect(roomView(b.page, roomName)).toBeHidden();

  // The call carries both voices.
  await expect(callRegion(b.page, 'Carol').locator('time')).toHaveText(/^0:0\d$/);
  await waitForAudioGrowth(b.page, SPEECH);
  await waitForAudioGrowth(c.page, SPEECH);
  expect((await audioStats(c.page)).connectionState).toBe('connected');
  await expect(friendRow(c.page, 'Bob')).toContainText('In a call');

  // Back into the room from the call: asked to end it; it ends for Carol and the room hears him again.
  await b.page.getByRole('button', { name: `Join ${roomName}` }).click();
  const back = b.page.getByRole('dialog', { name: `End your call with Carol and join ${roomName}?` });
  await back.getByRole('button', { name: 'End call and join' }).click();
  await expect(callRegion(c.page, 'Bob')).toBeHidden();
  await expect(roomView(b.page, roomName)).toBeVisible();
  await expectHearing(a.page, [bob]);
  await expectHearing(b.page, [alice]);
});

test('answered in another tab, which has no room to leave, the server takes the person out of the room', async ({
  baseURL,
  launchCallBrowser,
}) => {
  if (!baseURL) throw new Error('no baseURL');
  test.setTimeout(120_000);
  const { bob, a, b, roomName } = await twoInARoom(baseURL, launchCallBrowser, 'Walk Lounge');
  const carol = await createPerson(baseURL, 'Carol');
  await befriend(baseURL, carol, bob);
  const otherTab = await b.context.newPage();
  await openDashboardAs(otherTab, bob);
  const c = await launchCallBrowser({ speaker: 'carol', baseURL });
  await openDashboardAs(c.page, carol);
  await c.page.getByRole('tab', { name: 'Friends' }).click();
  await friendRow(c.page, 'Bob').getByRole('button', { name: 'Call Bob' }).click();

  const incoming = otherTab.getByRole('alertdialog');
  await expect(incoming).toContainText('Carol is calling you');
  await expectHearing(a.page, [bob]);
  await incoming.getByRole('button', { name: 'Accept' }).click();
  const answered = Date.now();

  await stoppedHearing(a.page, bob.id, answered);
  await expect(b.page.getByText('You left the room for a call.')).toBeVisible();
  await expect(roomView(b.page, roomName)).toBeHidden();
  await expect(a.page.locator('li.participant')).toHaveCount(1);
  await waitForAudioGrowth(otherTab, SPEECH);
  await waitForAudioGrowth(c.page, SPEECH);
});
