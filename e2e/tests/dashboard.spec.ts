/**
 * The dashboard's frame: the header on a phone with a long name, the wording of sections
 * that are not built yet, and the counted request badge in the languages' plural forms.
 */
import type { Page } from '@playwright/test';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';

/** Signed in as `token`, in `language` (a signed-in start takes the profile's language). */
async function openDashboard(page: Page, token: string, language = 'en'): Promise<void> {
  const saved = await page.request.put('/api/users/profile', {
    headers: { Authorization: `Bearer ${token}` },
    data: { language },
  });
  expect(saved.status()).toBe(200);
  await page.goto('/login');
  await page.evaluate((value) => localStorage.setItem('token', value), token);
  await page.goto('/dashboard');
  await expect(page.locator('html')).toHaveAttribute('lang', language);
  await expect(page.getByTestId('current-user')).toBeVisible();
}

async function userId(page: Page, token: string): Promise<string> {
  const response = await page.request.get('/api/auth/me', { headers: { Authorization: `Bearer ${token}` } });
  return ((await response.json()) as { user: { id: string } }).user.id;
}

async function post(page: Page, token: string, route: string, data: unknown): Promise<void> {
  const response = await page.request.post(`/api/users/${route}`, {
    headers: { Authorization: `Bearer ${token}` },
    data,
  });
  expect(response.ok(), await response.text()).toBe(true);
}

test.describe('dashboard', () => {
  test('on a phone a long display name ends in an ellipsis; Log out keeps its size', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const user = { ...newUser('longname'), displayName: 'Maximiliana Alexandrovna Konstantinopolskaya' };
    await openDashboard(page, await registerViaApi(page, user));
    const chip = page.getByTestId('current-user');
    await expect(chip).toContainText(user.displayName);

    const logout = page.getByRole('button', { name: 'Log out' });
    const box = await logout.boundingBox();
    // 40 px is its designed size on phones (icon only), the size of the theme toggle beside it.
    expect(box?.width).toBeGreaterThanOrEqual(40);
    expect(box?.height).toBeGreaterThanOrEqual(40);
    const toggle = await page.getByRole('button', { name: 'Switch to light theme' }).boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(toggle?.width ?? Number.POSITIVE_INFINITY);
    await expect(logout).toBeInViewport({ ratio: 1 });

    const name = chip.locator('.dashboard__user-name');
    const truncation = await name.evaluate((element) => ({
      textOverflow: getComputedStyle(element).textOverflow,
      cut: element.scrollWidth > element.clientWidth,
    }));
    expect(truncation).toEqual({ textOverflow: 'ellipsis', cut: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  test('the Rooms and Calls tabs offer what works, in every language', async ({ page }) => {
    const token = await registerViaApi(page, newUser('rooms'));
    await openDashboard(page, token);
    await page.getByRole('tab', { name: 'Rooms' }).click();
    const panel = page.getByRole('tabpanel');
    await expect(panel.getByRole('button', { name: 'Create room' })).toBeVisible();
    await expect(panel.getByRole('searchbox', { name: 'Search rooms' })).toBeVisible();
    await expect(panel).not.toContainText('not available');
    await page.getByRole('tab', { name: 'Calls' }).click();
    // A new account has made no calls yet.
    await expect(panel).toContainText('Calls you make and receive will appear here.');

    await openDashboard(page, token, 'ru');
    await page.getByRole('tab', { name: 'Звонки' }).click();
    await expect(page.getByRole('tabpanel')).toContainText(
      'Здесь появятся звонки, которые вы совершаете и принимаете.',
    );
    await page.getByRole('tab', { name: 'Комнаты' }).click();
    await expect(page.getByRole('tabpanel').getByRole('button', { name: 'Создать комнату' })).toBeVisible();
  });

  test('the remove-friend dialog promises no calls', async ({ page }) => {
    const ann = newUser('ann');
    const annToken = await registerViaApi(page, ann);
    const dan = { ...newUser('dan'), displayName: 'Dan Drake' };
    const danToken = await registerViaApi(page, dan);
    await post(page, annToken, 'friend-request', { userId: await userId(page, danToken) });
    await post(page, danToken, 'friend-request/accept', { userId: await userId(page, annToken) });

    await openDashboard(page, annToken);
    await page.getByRole('tab', { name: 'Friends' }).click();
    await page.getByRole('button', { name: 'Remove Dan Drake from friends' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove Dan Drake from friends?' });
    await expect(dialog).toContainText(
      "You will no longer see each other's status. To be friends again, one of you will have to send a new friend request.",
    );
    await expect(dialog).not.toContainText(/call/i);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  test('counts pending requests in the plural forms of each language', async ({ page }) => {
    const me = newUser('counted');
    const token = await registerViaApi(page, me);
    const myId = await userId(page, token);
    for (let i = 0; i < 5; i++) {
      const sender = await registerViaApi(page, newUser(`sender${i}`));
      await post(page, sender, 'friend-request', { userId: myId });
    }
    // The badge on the first tab ("All", selected on load) says it in words to assistive technology.
    const expected = {
      en: '5 pending friend requests',
      ru: '5 заявок в друзья',
      de: '5 offene Freundschaftsanfragen',
      ja: '保留中の友だちリクエスト：5件',
    } as const;
    for (const [language, text] of Object.entries(expected)) {
      await openDashboard(page, token, language);
      await expect(page.getByRole('tab', { selected: true }).locator('.visually-hidden')).toHaveText(text);
    }
  });
});
