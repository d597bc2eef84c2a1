/**
 * Code-split chunks: one that keeps failing ends in the default error page (after the tries
 * loadChunk makes), one that fails once is fetched again and nothing shows the failure.
 */
import { createPerson, openDashboardAs } from '@voice/browser-bots';
import { expect, test } from '../support/fixtures.ts';

test('an uncaught route error shows the default error page, after the chunk was asked for four times', async ({
  page,
}) => {
  // The language test page is code-split: refuse its chunk and the route fails to load.
  let asked = 0;
  await page.route(/\/assets\/LanguageTestPage-[\w-]+\.js$/, (route) => {
    asked += 1;
    return route.abort();
  });
  await page.goto('/language-test');
  // Tries 1 s, 2 s and 4 s apart (CHUNK_RETRY_DELAYS_MS) before giving up.
  await expect(page.getByRole('heading', { name: 'Unexpected Application Error!' })).toBeVisible({
    timeout: 20_000,
  });
  // Four tries; the first may be asked for twice (a modulepreload link beside the import).
  expect(asked).toBeGreaterThanOrEqual(4);
});

test('the code-split page loads normally', async ({ page }) => {
  await page.goto('/language-test');
  await expect(page.locator('[data-source="navigator"]')).toBeVisible();
});

test('the call overlay refused once: the dashboard stays, and its code and styles come on the next try', async ({
  page,
  baseURL,
}) => {
  const ann = await createPerson(baseURL as string, 'Ann Archer');
  const asked = { js: 0, css: 0 };
  await page.route(/\/assets\/CallOverlay-[\w-]+\.(js|css)$/, (route) => {
    const kind = route.request().url().endsWith('.css') ? 'css' : 'js';
    asked[kind] += 1;
    return asked[kind] === 1 ? route.abort() : route.continue();
  });
  await openDashboardAs(page, ann);
  await expect.poll(() => asked, { timeout: 15_000 }).toEqual({ js: 2, css: 2 });
  const overlayRules = () =>
    page.evaluate(() =>
      [...document.styleSheets]
        .filter((sheet) => sheet.href?.includes('/assets/CallOverlay-'))
        .reduce((rules, sheet) => rules + sheet.cssRules.length, 0),
    );
  await expect.poll(overlayRules).toBeGreaterThan(0);
  await expect(page.getByRole('heading', { name: 'Welcome, Ann Archer!' })).toBeVisible();
});
