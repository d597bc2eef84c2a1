/**
 * Screenshots of onboarding, the profile settings dialog and the language test page, in
 * both themes and in ja and de (long words), at 1280 and 360 px, into
 * test-results/screens/ for a human look. Also fails on horizontal overflow.
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';

const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 360, height: 740 },
} as const;

const VARIANTS = [
  { theme: 'dark', language: 'en' },
  { theme: 'light', language: 'en' },
  { theme: 'dark', language: 'ja' },
  { theme: 'light', language: 'de' },
] as const;

async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, 'page is wider than the viewport').toBeLessThanOrEqual(0);
}

/** Sets the profile's language and theme (the app applies the profile's theme when it restores a session). */
async function setLanguage(page: Page, token: string, language: string, theme: string): Promise<void> {
  const response = await page.request.put('/api/users/profile', {
    headers: { Authorization: `Bearer ${token}` },
    data: { language, theme },
  });
  expect(response.status()).toBe(200);
}

test('onboarding, profile settings and language test screens', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const newcomer = await registerViaApi(page, newUser('newcomer'), { onboarded: false });
  const member = await registerViaApi(page, newUser('member'));
  const dir = path.join(testInfo.project.outputDir, 'screens');
  // Step 1 is answered here, so the newcomer stays un-onboarded for every screen.
  await page.route('**/api/users/profile', (route) =>
    route.request().method() === 'PUT' ? route.fulfill({ json: { user: {} } }) : route.continue(),
  );

  for (const [viewportName, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    for (const { theme, language } of VARIANTS) {
      const shot = async (name: string, fullPage = true) => {
        await expectNoHorizontalOverflow(page);
        await page.screenshot({
          path: path.join(dir, `${viewportName}-${theme}-${language}-${name}.png`),
          fullPage,
        });
      };
      await setLanguage(page, newcomer, language, theme);
      await setLanguage(page, member, language, theme);
      await page.goto('/login');
      await page.evaluate(
        ({ token, chosen }) => {
          localStorage.setItem('token', token);
          localStorage.setItem('theme', chosen);
        },
        { token: newcomer, chosen: theme },
      );
      await page.goto('/onboarding');
      await expect(page.locator('html')).toHaveAttribute('lang', language);
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await expect(page.locator('input[name="displayName"]')).toBeVisible();
      await shot('onboarding-name');
      await page.locator('input[name="displayName"]').fill('A');
      await page.locator('button[type="submit"]').click();
      await expect(page.locator('.field__error')).toBeVisible();
      await shot('onboarding-name-error');
      await page.locator('input[name="displayName"]').fill('Mia Müller-Lüdenscheidt');
      await page.locator('button[type="submit"]').click();
      await expect(page.locator('.avatar-picker')).toBeVisible();
      await page.locator('.onboarding__actions .button--primary').click();
      await expect(page.locator('.avatar-picker__error')).toBeVisible();
      await shot('onboarding-avatar-error');
      await page.locator('.avatar-tile').nth(3).click();
      await shot('onboarding-avatar');

      await page.evaluate((token) => localStorage.setItem('token', token), member);
      await page.goto('/dashboard');
      await page.getByTestId('current-user').click();
      const dialog = page.getByRole('dialog');
      await expect(dialog).toBeVisible();
      await shot('settings', false);
      await dialog.locator('.dialog__body').evaluate((body) => body.scrollTo(0, body.scrollHeight));
      await shot('settings-bottom', false);
      await page.keyboard.press('Escape');

      await page.goto('/smart-language-test');
      await expect(page.locator('.language-test__sources')).toBeVisible();
      await shot('language-test');
      await page.evaluate(() => localStorage.removeItem('token'));
    }
  }
});
