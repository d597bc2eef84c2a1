/**
 * Moderation that means it (issue 19, item 6), two people in Chromium through the real media
 * server: the admin's mute cannot be undone by the muted person (they read who muted them, and
 * neither the button nor the M key unmutes them, and no voice of theirs arrives) until the admin
 * lifts it; removing someone asks first, and the removed person cannot join again (a clear
 * message) until the admin invites them again.
 */
import type { Page } from '@playwright/test';
import {
  apiCall,
  befriend,
  expectHearing,
  openRooms,
  roomAudio,
  roomView,
  twoInARoom,
} from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';
import { expect, test } from '../support/callBrowser.ts';

const participant = (page: Page, name: string) => page.locator('li.participant').filter({ hasText: name });
const voicePanel = (page: Page) => page.getByRole('region', { name: 'Voice' });

/**
 * The decoded energy of `peerId`'s voice at `page` grows by less than this over 3 s, counted from
 * a second after the mute: what the listener's jitter buffer already held still plays (on a busy
 * machine it holds hundreds of milliseconds), as in rooms.spec.
 */
async function expectSilent(page: Page, peerId: string): Promise<void> {
  await page.waitForTimeout(1000);
  const from = (await roomAudio(page))[peerId];
  await page.waitForTimeout(3000);
  const to = (await roomAudio(page))[peerId];
  expect((to?.energy ?? 0) - (from?.energy ?? 0)).toBeLessThan(0.001);
}

test.describe('moderation', () => {
  test('server mute cannot be undone by the muted person; a removed person cannot rejoin until invited again', async ({
    baseURL,
    launchCallBrowser,
  }) => {
    if (!baseURL) throw new Error('no baseURL');
    test.setTimeout(120_000);
    const { alice, bob, a, b, roomName, roomId } = await twoInARoom(baseURL, launchCallBrowser, 'Moderated');
    await befriend(baseURL, alice, bob);

    // Alice mutes Bob; Bob reads who did it and cannot unmute, by button or by key.
    await participant(a.page, 'Bob').getByRole('button', { name: 'Mute Bob' }).click();
    await expect(voicePanel(b.page)).toContainText('Alice muted you');
    const unmute = voicePanel(b.page).getByRole('button', { name: 'Unmute microphone' });
    await expect(unmute).toBeDisabled();
    await expect(participant(a.page, 'Bob')).toHaveAttribute('data-muted', 'true');
    await expect(participant(b.page, 'Bob')).toHaveAttribute('data-muted', 'true');
    await b.page.locator('body').press('m');
    await expect(unmute).toBeDisabled();
    await expect(participant(a.page, 'Bob')).toHaveAttribute('data-muted', 'true');
    await expectSilent(a.page, bob.id);

    // Alice lifts it; only Bob turns his microphone back on, and Alice hears him again.
    await participant(a.page, 'Bob').getByRole('button', { name: 'Unmute Bob' }).click();
    await expect(voicePanel(b.page)).not.toContainText('Alice muted you');
    await expect(unmute).toBeEnabled();
    await expect(participant(a.page, 'Bob')).toHaveAttribute('data-muted', 'true');
    await unmute.click();
    await expect(participant(a.page, 'Bob')).toHaveAttribute('data-muted', 'false');
    await expectHearing(a.page, [bob]);

    // Removing asks first; cancelled, Bob stays.
    await participant(a.page, 'Bob').getByRole('button', { name: 'Remove Bob from the room' }).click();
    const question = a.page.getByRole('dialog', { name: 'Remove Bob from the room?' });
    await expect(question).toContainText('5 minutes');
    await question.getByText('Cancel', { exact: true }).click();
    await expect(question).toBeHidden();
    await expect(a.page.locator('li.participant')).toHaveCount(2);
    await participant(a.page, 'Bob').getByRole('button', { name: 'Remove Bob from the room' }).click();
    await question.getByRole('button', { name: 'Remove' }).click();
    await expect(b.page.getByText('You were removed from the room.')).toBeVisible();
    await expect(a.page.locator('li.participant')).toHaveCount(1);

    // Bob cannot come back, and is told why.
    await openRooms(b.page, bob);
    await b.page.getByRole('button', { name: `Join ${roomName}` }).click();
    await expect(
      b.page.getByText('You were removed from this room. You can join again in 5 minutes, or when invited'),
    ).toBeVisible();
    await expect(roomView(b.page, roomName)).toBeHidden();

    // Alice invites him again: he may join at once, through the invitation.
    await apiCall(baseURL, ROOM_ROUTES.invite(roomId), {
      method: 'POST',
      token: alice.token,
      body: { userIds: [bob.id] },
    });
    await b.page
      .getByRole('list', { name: 'Room invitations' })
      .getByRole('button', { name: `Join ${roomName}` })
      .click();
    await expect(roomView(b.page, roomName)).toBeVisible();
    await expect(a.page.locator('li.participant')).toHaveCount(2);
    await expectHearing(a.page, [bob]);
  });
});
