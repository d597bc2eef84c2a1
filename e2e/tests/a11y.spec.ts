/** axe on the screens of issue 3, in both themes: no serious or critical violations. */
import { expectAccessible } from '../support/a11y.ts';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';

const THEMES = ['dark', 'light'] as const;

for (const theme of THEMES) {
  test(`onboarding, profile settings and the language test page pass axe (${theme})`, async ({ page }) => {
    // axe on several screens: 42–45 s with the other screens worker busy on a slow day.
    test.setTimeout(120_000);
    const user = newUser(`axe_${theme}`);
    const token = await registerViaApi(page, user, { onboarded: false });
    // A restored session takes the profile's theme.
    const themed = await page.request.put('/api/users/profile', {
      headers: { Authorization: `Bearer ${token}` },
      data: { theme },
    });
    expect(themed.status()).toBe(200);
    await page.goto('/login');
    await page.evaluate(
      ({ value, chosen }) => {
        localStorage.setItem('token', value);
        localStorage.setItem('theme', chosen);
      },
      { value: token, chosen: theme },
    );
    await page.goto('/onboarding');
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await expect(page.getByText('Step 1 of 2')).toBeVisible();
    await expectAccessible(page, 'onboarding, name step');

    await page.getByLabel('Display name').fill('A');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByLabel('Display name')).toHaveAttribute('aria-invalid', 'true');
    await expectAccessible(page, 'onboarding, name error');

    await page.getByLabel('Display name').fill('Axe Tester');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Use this avatar' }).click();
    await expect(page.getByText('Please select an avatar')).toBeVisible();
    await expectAccessible(page, 'onboarding, avatar step with error');
    await page.getByTitle('Koala').click();
    await expectAccessible(page, 'onboarding, avatar chosen');

    await page.getByRole('button', { name: 'Use this avatar' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.getByTestId('current-user').click();
    await expect(page.getByRole('dialog', { name: 'Profile settings' })).toBeVisible();
    await expectAccessible(page, 'profile settings dialog');
    await page.getByRole('dialog').getByLabel('Display name').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByText('Please enter a display name')).toBeVisible();
    await expectAccessible(page, 'profile settings dialog with an error');
    await page.keyboard.press('Escape');

    await page.goto('/smart-language-test');
    await expect(page.getByRole('heading', { name: 'Smart language detection' })).toBeVisible();
    await expectAccessible(page, 'smart language test page');
  });
}
