import { expect, test } from '../support/fixtures.ts';

test('an uncaught route error shows the default error page', async ({ page }) => {
  // The language test page is code-split: refuse its chunk and the route fails to load.
  await page.route(/\/assets\/LanguageTestPage-[\w-]+\.js$/, (route) => route.abort());
  await page.goto('/language-test');
  await expect(page.getByRole('heading', { name: 'Unexpected Application Error!' })).toBeVisible();
});

test('the code-split page loads normally', async ({ page }) => {
  await page.goto('/language-test');
  await expect(page.locator('[data-source="navigator"]')).toBeVisible();
});
