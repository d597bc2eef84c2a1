/**
 * Screenshots of every account screen in both themes, on a desktop and a 360 px phone,
 * into test-results/screens/ for a human look. Also fails on horizontal overflow.
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';

const THEMES = ['dark', 'light'] as const;
const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 360, height: 740 },
} as const;

async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, 'page is wider than the viewport').toBeLessThanOrEqual(0);
}

test('account screens in both themes', async ({ page, mailbox }, testInfo) => {
  test.setTimeout(120_000);
  const user = newUser('screens');
  const token = await registerViaApi(page, user);
  const since = mailbox.count;
  const forgot = await page.request.post('/api/auth/forgot-password', { data: { email: user.email } });
  expect(forgot.status()).toBe(200);
  const { mail } = await mailbox.waitForMessageTo(user.email, { since });
  const resetLink = mail.text?.match(/\/reset-password\?token=[^\s"'<>&]+/)?.[0];
  expect(resetLink).toBeTruthy();

  const dir = path.join(testInfo.project.outputDir, 'screens');
  for (const [viewportName, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    for (const theme of THEMES) {
      const shot = async (name: string) => {
        await expectNoHorizontalOverflow(page);
        await page.screenshot({
          path: path.join(dir, `${viewportName}-${theme}-${name}.png`),
          fullPage: true,
        });
      };
      await page.goto('/login');
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      await page.reload();
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);

      await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
      await shot('login');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert')).toBeVisible();
      await shot('login-error');

      await page.goto('/register');
      await page.getByLabel('Username').fill(user.username);
      await expect(page.getByText('Username is already taken')).toBeVisible();
      await page.getByLabel('Email').fill('not-an-email');
      await page.getByRole('button', { name: 'Create account' }).click();
      await shot('register-errors');
      await page.getByLabel('Username').fill(newUser('free').username);
      await expect(page.getByText('Username is available')).toBeVisible();
      await shot('register-available');

      await page.goto('/forgot-password');
      await expect(page.getByRole('heading', { name: 'Forgot your password?' })).toBeVisible();
      await shot('forgot-password');
      // An address without an account: the answer is the same, and no account's limit is used.
      await page.getByLabel('Email').fill(`nobody-${viewportName}-${theme}@voice.test`);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
      await shot('forgot-password-sent');

      await page.goto(resetLink as string);
      await expect(page.getByRole('heading', { name: 'Set a new password' })).toBeVisible();
      await shot('reset-password');
      await page.goto('/reset-password?token=nope');
      await expect(page.getByRole('heading', { name: 'Link invalid or expired' })).toBeVisible();
      await shot('reset-password-invalid');

      // A restored session takes the profile's theme.
      await page.request.put('/api/users/profile', {
        headers: { Authorization: `Bearer ${token}` },
        data: { theme },
      });
      await page.evaluate((value) => localStorage.setItem('token', value), token);
      await page.goto('/dashboard');
      await expect(page.getByTestId('current-user')).toContainText(user.displayName);
      await shot('dashboard');
      await page.evaluate(() => localStorage.removeItem('token'));
    }
  }
});

test('long translations fit a 360 px phone', async ({ page }, testInfo) => {
  const user = newUser('langs');
  const token = await registerViaApi(page, user);
  const dir = path.join(testInfo.project.outputDir, 'screens');
  await page.setViewportSize(VIEWPORTS.mobile);
  // ja is left out: Debian's Chromium here has no CJK font, so it would only show boxes.
  for (const language of ['ru', 'de', 'fr']) {
    const shot = async (name: string) => {
      await expectNoHorizontalOverflow(page);
      await page.screenshot({ path: path.join(dir, `mobile-${language}-${name}.png`), fullPage: true });
    };
    await page.goto('/login');
    await page.evaluate((value) => localStorage.setItem('i18nextLng', value), language);
    await page.goto('/register');
    await expect(page.locator('html')).toHaveAttribute('lang', language);
    await page.locator('button[type=submit]').click();
    await expect(page.locator('[aria-invalid=true]').first()).toBeVisible();
    await shot('register-errors');
    await page.goto('/forgot-password');
    await shot('forgot-password');
    // Signed in, the profile's language wins at start-up: save this one there.
    const saved = await page.request.put('/api/users/profile', {
      headers: { Authorization: `Bearer ${token}` },
      data: { language },
    });
    expect(saved.status()).toBe(200);
    await page.evaluate((value) => localStorage.setItem('token', value), token);
    await page.goto('/dashboard');
    await expect(page.getByTestId('current-user')).toContainText(user.displayName);
    await expect(page.locator('html')).toHaveAttribute('lang', language);
    await shot('dashboard');
    await page.evaluate(() => localStorage.removeItem('token'));
  }
});
