/** The profile settings dialog (SPEC section 2): name, avatar, language, theme, notifications. */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import type { User } from '@voice/protocol';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';
import { gradientPng } from '../support/images.ts';

async function me(page: Page, token: string): Promise<User> {
  const response = await page.request.get('/api/auth/me', { headers: { Authorization: `Bearer ${token}` } });
  return ((await response.json()) as { user: User }).user;
}

/** No serious or critical axe findings (WCAG 2.2 AA, contrast included) on what is shown. */
async function expectAccessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious, `${what}: serious or critical axe violations`).toEqual([]);
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
    await expect(dialog.getByRole('checkbox', { name: 'Sounds (ringtone and alerts)' })).toBeVisible();

    // Tab and Shift+Tab never leave the dialog.
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      expect(await dialog.evaluate((element) => element.contains(document.activeElement))).toBe(true);
    }
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await dialog.evaluate((element) => element.contains(document.activeElement))).toBe(true);
    }
    // A control disabled while focused (as the notification switch is once the browser says
    // "Blocked") does not drop focus out of the dialog.
    const save = dialog.getByRole('button', { name: 'Save changes' });
    await save.focus();
    await save.evaluate((button: HTMLButtonElement) => {
      button.disabled = true;
    });
    await expect
      .poll(() => dialog.evaluate((element) => element.contains(document.activeElement)))
      .toBe(true);
    await save.evaluate((button: HTMLButtonElement) => {
      button.disabled = false;
    });
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
    // The dialog stays open and says so; closing it then asks nothing.
    await expect(dialog.getByRole('status')).toHaveText('Saved');
    await dialog.getByRole('button', { name: 'Close' }).last().click();
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
    await expect(dialog.getByRole('status')).toHaveText('Saved');
    await page.keyboard.press('Escape');
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

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    test(`keeps its header in view when a theme is picked, at ${viewport.width} px`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await openDashboard(page, await registerViaApi(page, newUser('header')));
      await page.getByTestId('current-user').click();
      const dialog = page.getByRole('dialog', { name: 'Profile settings' });
      await dialog.getByText('Light', { exact: true }).click();
      await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
      await dialog.getByText('Dark', { exact: true }).click();
      await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

      // The dialog itself never scrolls: only its body does, between a fixed header and footer.
      const layout = await dialog.evaluate((element) => {
        const box = (selector: string) => {
          const rect = (element.querySelector(selector) as HTMLElement).getBoundingClientRect();
          return { top: rect.top, bottom: rect.bottom };
        };
        const rect = element.getBoundingClientRect();
        return {
          scrollTop: element.scrollTop,
          overflow: element.scrollHeight - element.clientHeight,
          dialog: { top: rect.top, bottom: rect.bottom },
          header: box('.dialog__header'),
          footer: box('.dialog__footer'),
        };
      });
      expect(layout.scrollTop).toBe(0);
      expect(layout.overflow).toBeLessThanOrEqual(0);
      expect(Math.abs(layout.header.top - layout.dialog.top)).toBeLessThanOrEqual(1);
      // No blank strip under the footer.
      expect(Math.abs(layout.dialog.bottom - layout.footer.bottom)).toBeLessThanOrEqual(1);
      await expect(dialog.getByRole('heading', { name: 'Profile settings' })).toBeInViewport({ ratio: 1 });
      await expect(dialog.getByRole('button', { name: 'Close' }).first()).toBeInViewport({ ratio: 1 });
    });
  }

  test('asks before discarding an unsaved edit, on every way of closing', async ({ page }) => {
    const user = newUser('discard');
    const token = await registerViaApi(page, user);
    await openDashboard(page, token);
    await page.getByTestId('current-user').click();
    const dialog = page.getByRole('dialog', { name: 'Profile settings' });
    const name = dialog.getByLabel('Display name');
    await name.fill('Not Yet Saved');
    const question = dialog.getByRole('alert');

    // The footer's Close: the question, with focus on the safe answer.
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await expect(question).toHaveText('Discard your unsaved changes?');
    await expect(dialog.getByRole('button', { name: 'Keep editing' })).toBeFocused();
    await dialog.getByRole('button', { name: 'Keep editing' }).click();
    await expect(question).toHaveCount(0);
    await expect(dialog).toBeVisible();
    await expect(name).toHaveValue('Not Yet Saved');

    // Escape, twice (Chrome lets a repeated Escape through): the dialog stays and asks.
    await name.focus();
    await page.keyboard.press('Escape');
    await expect(question).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeVisible();
    await expect(question).toBeVisible();
    await dialog.getByRole('button', { name: 'Keep editing' }).click();
    await expect(name).toBeFocused();

    // The header's close button and a click on the backdrop ask too.
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await expect(question).toBeVisible();
    await dialog.getByRole('button', { name: 'Keep editing' }).click();
    await page.mouse.click(5, 5);
    await expect(question).toBeVisible();

    await dialog.getByRole('button', { name: 'Discard' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId('current-user')).toContainText(user.displayName);
    expect((await me(page, token)).display_name).toBe(user.displayName);
    await page.getByTestId('current-user').click();
    await expect(dialog.getByLabel('Display name')).toHaveValue(user.displayName);
  });

  test('closes on a click on the backdrop, not on one inside', async ({ page }) => {
    await openDashboard(page, await registerViaApi(page, newUser('backdrop')));
    const opener = page.getByTestId('current-user');
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Profile settings' });
    const box = await dialog.boundingBox();
    if (!box) throw new Error('the dialog has no box');
    // Inside, on the body's padding and on the header: nothing happens.
    await page.mouse.click(box.x + 4, box.y + box.height / 2);
    await page.mouse.click(box.x + box.width / 2, box.y + 10);
    await expect(dialog).toBeVisible();
    // A press inside dragged out onto the backdrop is a text selection, not a click on it.
    await page.mouse.move(box.x + 40, box.y + 20);
    await page.mouse.down();
    await page.mouse.move(box.x - 30, box.y + 20);
    await page.mouse.up();
    await expect(dialog).toBeVisible();

    await page.mouse.click(box.x - 30, box.y + box.height / 2);
    await expect(dialog).toHaveCount(0);
    await expect(opener).toBeFocused();
  });

  test('confirms a save with a visible "Saved", which an edit clears', async ({ page }) => {
    const user = newUser('saver');
    const token = await registerViaApi(page, user);
    await openDashboard(page, token);
    await page.getByTestId('current-user').click();
    const dialog = page.getByRole('dialog', { name: 'Profile settings' });
    const status = dialog.getByRole('status');
    await expect(status).toHaveText('');
    await dialog.getByLabel('Display name').fill('Sally Saved');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(status).toHaveText('Saved');
    await expect(status).toBeVisible();
    await expect(page.getByTestId('current-user')).toContainText('Sally Saved');
    expect((await me(page, token)).display_name).toBe('Sally Saved');

    await dialog.getByLabel('Display name').fill('Sally Changed');
    await expect(status).toHaveText('');
    await dialog.getByLabel('Display name').fill('Sally Saved');
    // Back to what is saved: nothing to discard, Close closes.
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await expect(dialog).toHaveCount(0);
  });

  test('the "Saved" line and the discard question pass axe in both themes', async ({ page }) => {
    await openDashboard(page, await registerViaApi(page, newUser('axesave')));
    for (const theme of ['dark', 'light'] as const) {
      if ((await page.locator('html').getAttribute('data-theme')) !== theme) {
        await page.getByRole('button', { name: `Switch to ${theme} theme` }).click();
      }
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await page.getByTestId('current-user').click();
      const dialog = page.getByRole('dialog', { name: 'Profile settings' });
      await dialog.getByLabel('Display name').fill(`Axe ${theme}`);
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await expect(dialog.getByRole('status')).toHaveText('Saved');
      await expectAccessible(page, `saved, ${theme}`);
      await dialog.getByLabel('Display name').fill('Axe unsaved');
      await page.keyboard.press('Escape');
      await expect(dialog.getByRole('alert')).toBeVisible();
      await expectAccessible(page, `discard question, ${theme}`);
      await dialog.getByRole('button', { name: 'Discard' }).click();
      await expect(dialog).toHaveCount(0);
    }
  });
});
