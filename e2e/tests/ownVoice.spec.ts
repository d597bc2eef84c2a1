/**
 * Your own microphone, visible (issue 19, item 4): with a speech recording as the microphone,
 * your own tile lights while you speak (measured in the page, not only when the server picks
 * you), the voice panel's meter moves, and speaking while muted says "You are muted". In a
 * hidden tab the meter sleeps (its AudioContext suspended) unless a voice-activity gate with a
 * sensitivity needs your level while you send, and wakes when the tab is shown.
 */
import { apiCall, createPerson, openRooms, roomView } from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';
import { expect, test } from '../support/callBrowser.ts';
import { runningAudioContexts, setPageHidden, trackAudioContexts } from '../support/pageAudio.ts';

test('your own tile lights while you speak, and speaking muted says "You are muted"', async ({
  baseURL,
  launchCallBrowser,
}) => {
  const alice = await createPerson(baseURL as string, 'Alice');
  const roomName = `Own voice ${Date.now().toString(36)}`;
  await apiCall(baseURL as string, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: alice.token,
    body: { name: roomName, type: 'public' },
  });
  const a = await launchCallBrowser({ speaker: 'alice', baseURL: baseURL as string });
  const page = a.page;
  await trackAudioContexts(page);
  await openRooms(page, alice);
  await page.getByRole('button', { name: `Join ${roomName}` }).click();
  await expect(roomView(page, roomName)).toBeVisible();

  // Alone in the room: nobody else's audio could light the ring, and the server picks nobody.
  const own = page.locator('li.participant', { hasText: '(you)' });
  await expect(own).toHaveAttribute('data-speaking', 'true', { timeout: 15_000 });
  const panel = page.getByRole('region', { name: 'Voice' });
  await expect
    .poll(
      async () => Number(await panel.getByRole('meter', { name: 'Microphone level' }).getAttribute('value')),
      {
        timeout: 15_000,
      },
    )
    .toBeGreaterThan(0.1);

  await page.locator('body').press('m');
  await expect(own).toHaveAttribute('data-speaking', 'false', { timeout: 5000 });
  await expect(panel.getByText('You are muted')).toBeVisible({ timeout: 15_000 });
  await page.locator('body').press('m');
  await expect(panel.getByText('You are muted')).toHaveCount(0, { timeout: 5000 });

  // In a hidden tab nothing can show "You are muted" or your ring: the meter may sleep.
  const running = () => runningAudioContexts(page);
  const setHidden = (hidden: boolean) => setPageHidden(page, hidden);
  const awake = await running();
  expect(awake).toBeGreaterThan(0);
  // Hidden and unmuted, sent always (the default: no sensitivity), no gate needs your level.
  await setHidden(true);
  await expect.poll(running, { timeout: 5000 }).toBe(awake - 1);
  await setHidden(false);
  await expect.poll(running, { timeout: 5000 }).toBe(awake);
  // With a sensitivity, the meter opens the voice-activity gate: it runs hidden, until muted.
  await panel.getByRole('button', { name: 'Voice settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Voice settings' });
  await dialog.getByRole('checkbox', { name: 'Send whenever the microphone hears something' }).uncheck();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await setHidden(true);
  await page.waitForTimeout(500);
  expect(await running()).toBe(awake);
  await page.locator('body').press('m');
  await expect.poll(running, { timeout: 5000 }).toBe(awake - 1);
  await setHidden(false);
  await expect.poll(running, { timeout: 5000 }).toBe(awake);
  await expect(panel.getByText('You are muted')).toBeVisible({ timeout: 15_000 });
});
