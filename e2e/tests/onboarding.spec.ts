/** Onboarding (SPEC section 4): display name, then a stock avatar, a photo, or "set it later". */
import type { Page } from '@playwright/test';
import type { User } from '@voice/protocol';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';
import { gradientPng } from '../support/images.ts';

async function me(page: Page, token: string): Promise<User> {
  const response = await page.request.get('/api/auth/me', { headers: { Authorization: `Bearer ${token}` } });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { user: User }).user;
}

/** Opens the app signed in with `token`. */
async function openSignedIn(page: Page, token: string, path: string): Promise<void> {
  await page.goto('/login');
  await page.evaluate((value) => localStorage.setItem('token', value), token);
  await page.goto(path);
}

test.describe('onboarding', () => {
  test('a new account signs in, names itself and picks a stock avatar', async ({ page }) => {
    const user = newUser('stock');
    const token = await registerViaApi(page, user, { onboarded: false });
    expect((await me(page, token)).onboarding_completed).toBe(false);

    await page.goto('/login');
    await page.getByLabel('Username or email').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/onboarding$/);
    await expect(page.getByRole('heading', { name: "Welcome! Let's set up your profile" })).toBeVisible();
    await expect(page.getByText('Step 1 of 2')).toBeVisible();

    // Every signed-in page leads back here until onboarding is done.
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/onboarding$/);
    await page.goto('/login');
    await expect(page).toHaveURL(/\/onboarding$/);

    const name = page.getByLabel('Display name');
    await expect(name).toHaveValue(user.displayName);
    await name.fill('   ');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByText('Please enter a display name')).toBeVisible();
    await expect(name).toBeFocused();
    await name.fill('Z');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByText('Display name must be 2 to 50 characters long')).toBeVisible();
    await name.fill('  Zoe Stock  ');
    await page.getByRole('button', { name: 'Continue' }).click();

    await expect(page.getByRole('heading', { name: 'Choose an avatar' })).toBeVisible();
    await expect(page.getByText('Step 2 of 2')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Choose an avatar' })).toBeFocused();
    // An avatar is required for "Use this avatar".
    await page.getByRole('button', { name: 'Use this avatar' }).click();
    await expect(page.getByRole('alert')).toHaveText('Please select an avatar');

    const fox = page.getByRole('radio', { name: 'Fox' });
    await page.getByTitle('Fox').click();
    await expect(fox).toBeChecked();
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(page.getByTestId('avatar-preview').locator('img')).toHaveAttribute(
      'src',
      '/avatars/stock/fox.svg',
    );
    // Arrow keys move through the stock avatars like any radio group.
    await fox.press('ArrowRight');
    await expect(page.getByRole('radio', { name: 'Cat' })).toBeChecked();
    await page.getByRole('radio', { name: 'Cat' }).press('ArrowLeft');
    await expect(fox).toBeChecked();

    const completion = page.waitForRequest(
      (request) => request.url().endsWith('/api/users/profile') && request.method() === 'PUT',
    );
    await page.getByRole('button', { name: 'Use this avatar' }).click();
    expect((await completion).postDataJSON()).toEqual({ avatar: 'fox', completeOnboarding: true });
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByTestId('current-user')).toContainText('Zoe Stock');
    await expect(page.getByTestId('current-user').locator('img')).toHaveAttribute(
      'src',
      '/avatars/stock/fox.svg',
    );

    const profile = await me(page, token);
    expect(profile).toMatchObject({
      display_name: 'Zoe Stock',
      avatar_url: '/avatars/stock/fox.svg',
      onboarding_completed: true,
    });

    // Done is done: a reload stays on the dashboard and /onboarding sends the user there.
    await page.reload();
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/onboarding');
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test('uploads a photo, checked in the browser first', async ({ page }) => {
    const user = newUser('photo');
    const token = await registerViaApi(page, user, { onboarded: false });
    await openSignedIn(page, token, '/dashboard');
    await expect(page).toHaveURL(/\/onboarding$/);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('heading', { name: 'Choose an avatar' })).toBeVisible();

    const file = page.getByTestId('avatar-file');
    await file.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await expect(page.getByRole('alert')).toHaveText('Choose a JPG, PNG, GIF or WebP image');
    await file.setInputFiles({
      name: 'huge.png',
      mimeType: 'image/png',
      buffer: Buffer.alloc(5 * 1024 * 1024 + 1),
    });
    await expect(page.getByRole('alert')).toHaveText('The image is larger than 5 MB');

    // The button opens the system file chooser.
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload a photo' }).click();
    await (await chooser).setFiles({ name: 'me.png', mimeType: 'image/png', buffer: gradientPng() });
    await expect(page.getByRole('alert')).toHaveCount(0);
    const photo = page.getByRole('radio', { name: 'Your photo' });
    await expect(photo).toBeChecked();
    const preview = page.getByTestId('avatar-preview').locator('img');
    await expect(preview).toHaveAttribute('src', /^blob:/);
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(96);

    // Trying a stock avatar keeps the photo on offer.
    await page.getByTitle('Owl').click();
    await expect(preview).toHaveAttribute('src', '/avatars/stock/owl.svg');
    await page.getByTitle('Your photo').click();
    await expect(photo).toBeChecked();

    await page.getByRole('button', { name: 'Use this avatar' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    const profile = await me(page, token);
    expect(profile.onboarding_completed).toBe(true);
    expect(profile.avatar_url).toMatch(/^\/avatars\/u\/[0-9a-f]{64}\.webp$/);
    const headerAvatar = page.getByTestId('current-user').locator('img');
    await expect(headerAvatar).toHaveAttribute('src', profile.avatar_url as string);
    await expect.poll(() => headerAvatar.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(256);
  });

  test('the avatar step can be skipped and set later', async ({ page }) => {
    const user = newUser('skip');
    const token = await registerViaApi(page, user, { onboarded: false });
    await openSignedIn(page, token, '/');
    await expect(page).toHaveURL(/\/onboarding$/);
    await page.getByLabel('Display name').fill('Skip Per');
    await page.getByRole('button', { name: 'Continue' }).click();

    // Back to the name and forward again keeps what was typed.
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page.getByLabel('Display name')).toHaveValue('Skip Per');
    await page.getByRole('button', { name: 'Continue' }).click();

    const completion = page.waitForRequest(
      (request) => request.url().endsWith('/api/users/profile') && request.method() === 'PUT',
    );
    await page.getByRole('button', { name: 'Set it later' }).click();
    expect((await completion).postDataJSON()).toEqual({ completeOnboarding: true });
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByTestId('current-user')).toContainText('Skip Per');
    expect(await me(page, token)).toMatchObject({
      display_name: 'Skip Per',
      avatar_url: null,
      onboarding_completed: true,
    });
  });

  test("shows the spec's messages when saving fails", async ({ page }) => {
    const user = newUser('fails');
    const token = await registerViaApi(page, user, { onboarded: false });
    await openSignedIn(page, token, '/onboarding');
    const failing = {
      status: 500,
      contentType: 'application/json',
      body: '{"error":{"code":"INTERNAL","message":"x"}}',
    };

    await page.route('**/api/users/profile', (route) => route.fulfill(failing));
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('alert')).toHaveText('Failed to update display name');
    await page.unroute('**/api/users/profile');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('heading', { name: 'Choose an avatar' })).toBeVisible();

    await page.route('**/api/users/avatar', (route) =>
      route.fulfill({
        status: 413,
        contentType: 'application/json',
        body: '{"error":{"code":"IMAGE_TOO_LARGE","message":"Image too large"}}',
      }),
    );
    await page
      .getByTestId('avatar-file')
      .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: gradientPng() });
    await page.getByRole('button', { name: 'Use this avatar' }).click();
    await expect(page.getByText('Avatar setup failed, but you can change it later')).toBeVisible();
    await expect(page.getByText('The image is too large')).toBeVisible();
    await expect(page).toHaveURL(/\/onboarding$/);

    await page.route('**/api/users/profile', (route) => route.fulfill(failing));
    await page.getByRole('button', { name: 'Set it later' }).click();
    await expect(page.getByText('Profile setup failed. Please try again')).toBeVisible();
    await page.unroute('**/api/users/profile');
    await page.getByRole('button', { name: 'Set it later' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});
