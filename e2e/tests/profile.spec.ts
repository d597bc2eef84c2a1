/** The profile settings dialog (SPEC section 2): name, avatar, language, theme, notifications. */
import type { Page } from '@playwright/test';
import type { User } from '@voice/protocol';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';
import { gradientPng } from '../support/images.ts';

async function me(page: Page, token: string): Promise<User> {
  const response = await page.request.get('/api/auth/me', { headers: { Authorization: `Bearer ${token}` } });
  return ((await response.json()) as { user: User }).user;
}

async function openDashboard(page: Page, token: string): Promise<void> {
  await page.goto('/login');
  await page.evaluate((value) => localStorage.setItem('token', value), token);
  await page.goto('/dashboard');
  await expect(page.getByTestId('current-user')).toBeVisible();
}

test.describe('profile settings', () => {
  test('is an accessible modal: labelled, focus kept inside, Escape closes', async ({ page }) => {
    const user = newUser('dialog');
    await openDashboard(page, await registerViaApi(page, user));
    const opener = page.getByRole('button', { name: /Profile settings/ });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Profile settings' });
    await expect(dialog).toBeVisible();
    await expect(
      dialog.getByText('Notifications about calls, friend requests and room invitations are coming soon.'),
    ).toBeVisible();

    // Tab and Shift+Tab never leave the dialog.
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      expect(await dialog.evaluate((element) => element.contains(document.activeElement))).toBe(true);
    }
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await dialog.evaluate((element) => element.contains(document.activeElement))).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(opener).toBeFocused();

    await opener.click();
    await page.getByRole('button', { name: 'Close' }).first().click();
    await expect(dialog).toHaveCount(0);
  });

  test('changes the display name and the avatar, stock or uploaded', async ({ page }) => {
    const user = newUser('edit');
    const token = await registerViaApi(page, user);
    await openDashboard(page, token);
    await page.getByTestId('current-user').click();
    const dialog = page.getByRole('dialog', { name: 'Profile settings' });

    const name = dialog.getByLabel('Display name');
    await expect(name).toHaveValue(user.displayName);
    await name.fill('E');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog.getByText('Display name must be 2 to 50 characters long')).toBeVisible();
    await name.fill('Edith Renamed');
    await dialog.getByTitle('Panda').click();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId('current-user')).toContainText('Edith Renamed');
    await expect(page.getByTestId('current-user').locator('img')).toHaveAttribute(
      'src',
      '/avatars/stock/panda.svg',
    );
    expect(await me(page, token)).toMatchObject({
      display_name: 'Edith Renamed',
      avatar_url: '/avatars/stock/panda.svg',
    });

    // The dialog opens on what is saved; a photo replaces the stock avatar.
    await page.getByTestId('current-user').click();
    await expect(dialog.getByRole('radio', { name: 'Panda' })).toBeChecked();
    await dialog
      .getByTestId('avatar-file')
      .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: gradientPng(300) });
    await expect(dialog.getByRole('radio', { name: 'Your photo' })).toBeChecked();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog).toHaveCount(0);
    const profile = await me(page, token);
    expect(profile.avatar_url).toMatch(/^\/avatars\/u\/[0-9a-f]{64}\.webp$/);
    await expect(page.getByTestId('current-user').locator('img')).toHaveAttribute(
      'src',
      profile.avatar_url as string,
    );

    await page.reload();
    await page.getByTestId('current-user').click();
    await expect(dialog.getByRole('radio', { name: 'Your photo' })).toBeChecked();
    await expect(dialog.getByTestId('avatar-preview').locator('img')).toHaveAttribute(
      'src',
      profile.avatar_url as string,
    );
  });

  test('says "Failed to update profile" when the save fails', async ({ page }) => {
    const user = newUser('broken');
    const token = await registerViaApi(page, user);
    await openDashboard(page, token);
    await page.route('**/api/users/profile', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: '{"error":{"code":"INTERNAL","message":"x"}}',
      }),
    );
    await page.getByTestId('current-user').click();
    const dialog = page.getByRole('dialog', { name: 'Profile settings' });
    await dialog.getByLabel('Display name').fill('Never Saved');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Failed to update profile');
    await expect(dialog).toBeVisible();
    expect((await me(page, token)).display_name).toBe(user.displayName);
  });

  test('sets the theme directly; it holds across a reload', async ({ page }) => {
    const user = newUser('themer');
    await openDashboard(page, await registerViaApi(page, user));
    const html = page.locator('html');
    await expect(html).toHaveAttribute('data-theme', 'dark');
    await page.getByTestId('current-user').click();
    const dialog = page.getByRole('dialog', { name: 'Profile settings' });
    await expect(dialog.getByRole('radio', { name: 'Dark' })).toBeChecked();
    await dialog.getByText('Light', { exact: true }).click();
    await expect(html).toHaveAttribute('data-theme', 'light');
    await page.keyboard.press('Escape');
    await page.reload();
    await expect(html).toHaveAttribute('data-theme', 'light');
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('light');
    // The header toggle and the dialog agree.
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    await expect(html).toHaveAttribute('data-theme', 'dark');
    await page.getByTestId('current-user').click();
    await expect(dialog.getByRole('radio', { name: 'Dark' })).toBeChecked();
  });

  test('fits a 360 px phone', async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    const user = newUser('phone');
    await openDashboard(page, await registerViaApi(page, user));
    await page.getByTestId('current-user').click();
    const dialog = page.getByRole('dialog', { name: 'Profile settings' });
    const box = await dialog.boundingBox();
    expect(box?.width).toBeLessThanOrEqual(360);
    await expect(dialog.getByRole('button', { name: 'Save changes' })).toBeInViewport();
    const overflow = await dialog.evaluate((element) => element.scrollWidth - element.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
