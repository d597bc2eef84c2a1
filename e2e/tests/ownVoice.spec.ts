/**
 * Your own microphone, visible (issue 19, item 4): with a speech recording as the microphone,
 * your own tile lights while you speak (measured in the page, not only when the server picks
 * you), the voice panel's meter moves, and speaking while muted says "You are muted". Muted in
 * a hidden tab, the meter sleeps (its AudioContext suspended) and wakes when the tab is shown.
 */
import { apiCall, createPerson, openRooms, roomView } from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';
import { expect, test } from '../support/callBrowser.ts';

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
  await page.addInitScript(() => {
    const made: AudioContext[] = [];
    const Original = window.AudioContext;
    window.AudioContext = class extends Original {
      constructor(options?: AudioContextOptions) {
        super(options);
        made.push(this);
      }
    };
    Object.assign(window, { runningAudioContexts: () => made.filter((c) => c.state === 'running').length });
  });
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

  // Muted in a hidden tab, nothing can show "You are muted": the meter's AudioContext sleeps.
  const running = () =>
    page.evaluate(() => (window as unknown as { runningAudioContexts(): number }).runningAudioContexts());
  const setHidden = (hidden: boolean) =>
    page.evaluate((hidden) => {
      Object.defineProperty(document, 'visibilityState', {
        configurable: true,
        get: () => (hidden ? 'hidden' : 'visible'),
      });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
      document.dispatchEvent(new Event('visibilitychange'));
    }, hidden);
  const awake = await running();
  expect(awake).toBeGreaterThan(0);
  await setHidden(true);
  // Hidden but unmuted: the meter still opens the voice-activity gate.
  await page.waitForTimeout(500);
  expect(await running()).toBe(awake);
  await page.locator('body').press('m');
  await expect.poll(running, { timeout: 5000 }).toBe(awake - 1);
  await setHidden(false);
  await expect.poll(running, { timeout: 5000 }).toBe(awake);
  await expect(panel.getByText('You are muted')).toBeVisible({ timeout: 15_000 });
});
