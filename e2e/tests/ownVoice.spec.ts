/**
 * Your own microphone, visible (issue 19, item 4): with a speech recording as the microphone,
 * your own tile lights while you speak (measured in the page, not only when the server picks
 * you), the voice panel's meter moves, and speaking while muted says "You are muted".
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
});
