/**
 * /login arrives with the sign-in form already drawn (web/build/prerender.ts), in the
 * visitor's language: on a slow link it can be typed into before the app's code is in, and the
 * app takes over what was typed, where the caret was, and a form already sent. The app's own
 * chunk (start-*.js) is held back here to stand for that slow link.
 */
import type { Page } from '@playwright/test';
import { expect, newUser, registerViaApi, storedToken, test } from '../support/fixtures.ts';

/** Holds the app's chunk until `release` is called. */
async function holdTheApp(page: Page): Promise<() => void> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/assets\/start-[^/]+\.js$/, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

const root = (page: Page) => page.locator('#root');

test.describe('prerendered sign-in page', () => {
  test('typed before the app starts: the values and the caret are kept', async ({ page }) => {
    const user = newUser('early');
    await registerViaApi(page, user);
    const release = await holdTheApp(page);
    await page.goto('/login');
    await expect(root(page)).toHaveAttribute('data-prerendered', 'login');
    await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
    await expect(page).toHaveTitle('Welcome back · Voice');
    await expect(page.getByLabel('Username or email')).toBeFocused();
    await page.getByLabel('Username or email').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);

    release();
    await expect(root(page)).not.toHaveAttribute('data-prerendered');
    await expect(page.getByLabel('Username or email')).toHaveValue(user.username);
    await expect(page.getByLabel('Password', { exact: true })).toHaveValue(user.password);
    await expect(page.getByLabel('Password', { exact: true })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/dashboard$/);
    expect(await storedToken(page)).toBeTruthy();
  });

  test('sent before the app starts: nothing goes into the address, and it signs in when the app arrives', async ({
    page,
  }) => {
    const user = newUser('eager');
    await registerViaApi(page, user);
    const release = await holdTheApp(page);
    await page.goto('/login');
    await page.getByLabel('Username or email').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    // The start-up script has taken the form over: the button works, the browser does not send.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeDisabled();
    expect(new URL(page.url()).search).toBe('');

    release();
    await expect(page).toHaveURL(/\/dashboard$/);
    expect(await storedToken(page)).toBeTruthy();
  });

  test('a wrong password sent early is answered like any other', async ({ page }) => {
    const user = newUser('wrong');
    await registerViaApi(page, user);
    const release = await holdTheApp(page);
    await page.goto('/login');
    await page.getByLabel('Username or email').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(`${user.password}x`);
    await page.getByLabel('Password', { exact: true }).press('Enter');
    release();
    await expect(page.getByRole('alert')).toContainText('Invalid username or password');
    await expect(page).toHaveURL(/\/login$/);
  });

  test('served in the language the browser asks for, or the one named by the i18next cookie', async ({
    browser,
    baseURL,
  }) => {
    const german = await browser.newContext({ baseURL, locale: 'de-DE' });
    const page = await german.newPage();
    await holdTheApp(page);
    await page.goto('/login');
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await expect(page.getByRole('heading', { name: 'Willkommen zurück' })).toBeVisible();
    await german.close();

    const withCookie = await browser.newContext({ baseURL, locale: 'de-DE' });
    const url = new URL(baseURL as string);
    await withCookie.addCookies([{ name: 'i18next', value: 'fr', domain: url.hostname, path: '/' }]);
    const french = await withCookie.newPage();
    await holdTheApp(french);
    await french.goto('/login');
    await expect(french.getByRole('heading', { name: 'Bon retour parmi nous' })).toBeVisible();
    await withCookie.close();
  });

  test('a stored language the server could not know: the loading view, then the page in that language', async ({
    page,
  }) => {
    await page.addInitScript(() => localStorage.setItem('i18nextLng', 'fr'));
    const release = await holdTheApp(page);
    await page.goto('/login');
    // Never the English form: the start-up script replaced it with the loading view.
    await expect(page.locator('.boot-spinner')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Welcome back' })).toHaveCount(0);
    release();
    await expect(page.getByRole('heading', { name: 'Bon retour parmi nous' })).toBeVisible();
  });

  test('a stored session is not shown the form: it goes on to the dashboard', async ({ page }) => {
    const user = newUser('returning');
    const token = await registerViaApi(page, user);
    await page.addInitScript((stored) => localStorage.setItem('token', stored), token);
    const release = await holdTheApp(page);
    await page.goto('/login');
    await expect(page.locator('.boot-spinner')).toBeVisible();
    await expect(page.getByLabel('Username or email')).toHaveCount(0);
    release();
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});
