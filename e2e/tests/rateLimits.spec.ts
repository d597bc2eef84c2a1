/**
 * What a person sees when the API refuses for too many attempts. The refusal itself (status,
 * code, Retry-After) is proven against the real limiter in api/src/http and api/src/auth; here
 * the answer is replayed, since running a shared address into a real limit would hold up the
 * rest of the suite for the length of the window.
 */
import { expect, test } from '../support/fixtures.ts';

const RATE_LIMITED = {
  error: { code: 'RATE_LIMITED', message: 'Too many requests. Please try again later.' },
};

test('a rate-limited reset-link check says how long to wait, not "Network error"', async ({ page }) => {
  const verify = '**/api/auth/verify-reset-token/**';
  await page.route(verify, (route) =>
    route.fulfill({
      status: 429,
      headers: { 'Retry-After': '600' },
      contentType: 'application/json',
      body: JSON.stringify(RATE_LIMITED),
    }),
  );
  await page.goto('/reset-password?token=not-a-real-token');
  await expect(page.getByText('Too many attempts. Please try again in 10 minutes')).toBeVisible();
  await expect(page.getByText(/Network error/)).toHaveCount(0);

  // Once the limit has passed, Retry asks the real API again.
  await page.unroute(verify);
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('heading', { name: 'Link invalid or expired' })).toBeVisible();
});
