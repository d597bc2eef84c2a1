import type { Response } from '@playwright/test';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';

/** Each language's translations are a chunk named after it. */
const LANGUAGE_CHUNK = /\/assets\/(ru|en|es|de|it|ja|pt|fr)-[\w-]+\.js$/;
/** What only a signed-in person needs: the providers (with protoo-client and mediasoup-client) and their pages. */
const SIGNED_IN_CHUNK =
  /\/assets\/(?:SignedInProviders|DashboardPage|OnboardingPage|callRuntime|roomRuntime)-[\w-]+\.js$/;

declare global {
  interface Window {
    /** When the sign-in form's username field first appeared (performance.now()). */
    __formAt?: number;
  }
}

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
    // Like index.html, a script under 1 KB is sent as it is (the build compresses none that small).
    if ((await script.body()).length >= 1024) expect(headers['content-encoding'], script.url()).toBe('br');
    expect(headers['cache-control'], script.url()).toBe('public, max-age=31536000, immutable');
  }
  const names = scripts.map((r) => new URL(r.url()).pathname);
  expect(names.some((name) => /\/assets\/vendor-[\w-]+\.js$/.test(name))).toBe(true);
});

test('the sign-in form waits only for its own code and language; the rest follows', async ({ page }) => {
  // The app's own form: the one that replaced the form the server drew (prerenderedLogin.spec).
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (!document.querySelector('input[name="username"]')) return;
      if (document.querySelector('#root[data-prerendered]')) return;
      window.__formAt = performance.now();
      observer.disconnect();
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();

  const fetched = () =>
    page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => ({ path: new URL(entry.name).pathname, startedAt: entry.startTime })),
    );
  const formAt = await page.evaluate(() => window.__formAt ?? Number.NaN);
  expect(formAt).toBeGreaterThan(0);
  const before = (await fetched()).filter((r) => r.startedAt < formAt).map((r) => r.path);
  // The browser's language (en-US) only, not ru, the fallback for missing keys.
  expect(
    before.filter((path) => LANGUAGE_CHUNK.test(path)).map((path) => path.match(LANGUAGE_CHUNK)?.[1]),
  ).toEqual(['en']);
  expect(before.filter((path) => SIGNED_IN_CHUNK.test(path))).toEqual([]);
  // index.html names the app's chunks, so they do not wait for the start-up script to ask.
  const preloaded = await page.evaluate(() =>
    [...document.querySelectorAll('link[rel="modulepreload"]')].map((link) => link.getAttribute('href')),
  );
  expect(preloaded.some((href) => /\/assets\/start-[\w-]+\.js$/.test(href ?? ''))).toBe(true);

  // Once the form is on screen, what signing in leads to, and the fallback language, load.
  await expect
    .poll(async () => {
      const paths = (await fetched()).map((r) => r.path);
      return {
        dashboard: paths.some((path) => /\/assets\/DashboardPage-[\w-]+\.js$/.test(path)),
        providers: paths.some((path) => /\/assets\/SignedInProviders-[\w-]+\.js$/.test(path)),
        fallback: paths.some((path) => /\/assets\/ru-[\w-]+\.js$/.test(path)),
      };
    })
    .toEqual({ dashboard: true, providers: true, fallback: true });
  // The page still works: nothing that loaded afterwards replaced the form.
  await page.getByLabel('Username or email').fill('someone');
  await expect(page.getByLabel('Username or email')).toHaveValue('someone');
});

test('a signed-in start loads the dashboard beside the app, not the sign-in page', async ({ page }) => {
  const token = await registerViaApi(page, newUser('delivery'));
  await page.goto('/terms');
  await page.evaluate((value) => localStorage.setItem('token', value), token);
  await page.goto('/');
  await expect(page).toHaveURL(/\/dashboard$/);
  const paths = await page.evaluate(() =>
    performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname),
  );
  expect(paths.some((path) => /\/assets\/SignedInProviders-[\w-]+\.js$/.test(path))).toBe(true);
  expect(paths.some((path) => /\/assets\/DashboardPage-[\w-]+\.js$/.test(path))).toBe(true);
  expect(paths.some((path) => /\/assets\/LoginPage-[\w-]+\.js$/.test(path))).toBe(false);

  // Once the dashboard is idle, a room's screen and runtime load too: Join does not wait for them.
  await expect
    .poll(() =>
      page.evaluate(() =>
        performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname),
      ),
    )
    .toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\/assets\/RoomPage-[\w-]+\.js$/),
        expect.stringMatching(/\/assets\/roomRuntime-[\w-]+\.js$/),
      ]),
    );
});
