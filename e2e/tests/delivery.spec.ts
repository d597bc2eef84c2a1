import type { Response } from '@playwright/test';
import { expect, test } from '../support/fixtures.ts';

// How the built app reaches a browser: compressed, cached by content hash, and split so the
// sign-in page loads only what it needs.
test('the sign-in page arrives compressed, with hashed assets cached for a year', async ({ page }) => {
  const responses: Response[] = [];
  page.on('response', (response) => responses.push(response));
  await page.goto('/login');
  await expect(page.locator('form input').first()).toBeVisible();
  await page.waitForLoadState('networkidle');

  const document = responses.find((r) => new URL(r.url()).pathname === '/login');
  expect(document).toBeDefined();
  const documentHeaders = await document?.allHeaders();
  // index.html itself is under 1 KB: not worth compressing, but never cached unchecked.
  expect(documentHeaders?.['cache-control']).toBe('no-cache');

  const scripts = responses.filter((r) => /\/assets\/[\w-]+\.js$/.test(new URL(r.url()).pathname));
  expect(scripts.length).toBeGreaterThan(0);
  for (const script of scripts) {
    const headers = await script.allHeaders();
    expect(headers['content-encoding'], script.url()).toBe('br');
    expect(headers['cache-control'], script.url()).toBe('public, max-age=31536000, immutable');
  }
  // The dashboard and onboarding are their own chunks, fetched only once someone signs in.
  const names = scripts.map((r) => new URL(r.url()).pathname);
  expect(names.some((name) => /\/assets\/vendor-[\w-]+\.js$/.test(name))).toBe(true);
  expect(names.filter((name) => /DashboardPage|OnboardingPage/.test(name))).toEqual([]);
});
