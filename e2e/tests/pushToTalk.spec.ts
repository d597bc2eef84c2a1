/**
 * Push-to-talk (issue 19, item 5): chosen in the voice settings, Alice's microphone reaches the
 * room only while she holds the key (the backquote by default, or the one she binds); with the
 * key up Bob receives no energy from her, held he does. Speech recordings as microphones.
 */
import type { Page } from '@playwright/test';
import { openDashboardAs, type Person, roomAudio, twoInARoom } from '@voice/browser-bots';
import { expect, test } from '../support/callBrowser.ts';

/** The energy `listener` receives from `speaker` over `ms`. */
async function energyOver(listener: Page, speaker: Person, ms: number): Promise<number> {
  const before = (await roomAudio(listener))[speaker.id]?.energy ?? 0;
  await listener.waitForTimeout(ms);
  return ((await roomAudio(listener))[speaker.id]?.energy ?? 0) - before;
}

test('push-to-talk: nothing reaches the room with the key up; held, the voice does', async ({
  baseURL,
  browser,
  launchCallBrowser,
}) => {
  test.setTimeout(120_000);
  const { alice, a, b } = await twoInARoom(baseURL as string, launchCallBrowser, 'Talk');
  const panel = a.page.getByRole('region', { name: 'Voice' });

  await panel.getByRole('button', { name: 'Voice settings' }).click();
  const dialog = a.page.getByRole('dialog', { name: 'Voice settings' });
  await dialog.getByRole('radio', { name: 'Push to talk' }).check();
  await expect(dialog.getByRole('button', { name: '`' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(panel.getByText('Hold ` to talk')).toBeVisible();

  // Key up: silence (a moment first, for what was on its way).
  await a.page.waitForTimeout(500);
  expect(await energyOver(b.page, alice, 2500)).toBeLessThan(0.001);

  // Held: her voice arrives.
  await a.page.keyboard.down('Backquote');
  await expect.poll(() => energyOver(b.page, alice, 1000), { timeout: 15_000 }).toBeGreaterThan(0.001);
  await a.page.keyboard.up('Backquote');
  await a.page.waitForTimeout(500);
  expect(await energyOver(b.page, alice, 2500)).toBeLessThan(0.001);

  // Another key, bound by pressing it; the backquote no longer opens the microphone.
  await panel.getByRole('button', { name: 'Voice settings' }).click();
  await dialog.getByRole('button', { name: '`' }).click();
  await expect(dialog.getByRole('button', { name: 'Press a key…' })).toBeVisible();
  await a.page.keyboard.press('KeyV');
  await expect(dialog.getByRole('button', { name: 'V', exact: true })).toBeVisible();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await a.page.keyboard.down('Backquote');
  expect(await energyOver(b.page, alice, 2500)).toBeLessThan(0.001);
  await a.page.keyboard.up('Backquote');
  await a.page.keyboard.down('KeyV');
  await expect.poll(() => energyOver(b.page, alice, 1000), { timeout: 15_000 }).toBeGreaterThan(0.001);
  await a.page.keyboard.up('KeyV');

  // The settings are in her profile: another browser she signs in to has them.
  const elsewhere = await browser.newContext({ baseURL: baseURL as string });
  const other = await elsewhere.newPage();
  await openDashboardAs(other, alice);
  await expect
    .poll(() => other.evaluate(() => JSON.parse(localStorage.getItem('voiceSettings') ?? '{}')))
    .toMatchObject({ inputMode: 'push-to-talk', pushToTalkKey: 'KeyV' });
  await elsewhere.close();

  // Back to voice activity: she is heard again without a key.
  await panel.getByRole('button', { name: 'Voice settings' }).click();
  await dialog.getByRole('radio', { name: 'Voice activity' }).check();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect.poll(() => energyOver(b.page, alice, 1000), { timeout: 15_000 }).toBeGreaterThan(0.001);

  // Deafened, she hears nobody, and Bob sees it on her tile.
  const aliceTile = b.page.locator('li.participant', { hasText: 'Alice' });
  await panel.getByRole('button', { name: 'Deafen' }).click();
  await expect(aliceTile).toHaveAttribute('data-deafened', 'true');
  await expect(aliceTile.getByText('Deafened')).toBeAttached();
  await panel.getByRole('button', { name: 'Undeafen' }).click();
  await expect(aliceTile).toHaveAttribute('data-deafened', 'false');
});
