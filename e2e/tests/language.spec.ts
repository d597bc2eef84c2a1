/** Languages (SPEC section 4): start-up initialisation, changes saved to the profile, test pages. */
import type { Page } from '@playwright/test';
import type { User } from '@voice/protocol';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';

async function me(page: Page, token: string): Promise<User> {
  const response = await page.request.get('/api/auth/me', { headers: { Authorization: `Bearer ${token}` } });
  return ((await response.json()) as { user: User }).user;
}

const storedLanguage = (page: Page) => page.evaluate(() => localStorage.getItem('i18nextLng'));

function profileSaved(page: Page) {
  return page.waitForResponse(
    (response) => response.url().endsWith('/api/users/profile') && response.request().method() === 'PUT',
  );
}

test.describe('languages', () => {
  test('switches to ja and back from the settings; the profile keeps the choice', async ({ page }) => {
    const user = newUser('polyglot');
    const token = await registerViaApi(page, user);
    await page.goto('/login');
    await page.evaluate((value) => localStorage.setItem('token', value), token);
    await page.goto('/dashboard');
    const html = page.locator('html');
    await expect(html).toHaveAttribute('lang', 'en');

    await page.getByTestId('current-user').click();
    let saved = profileSaved(page);
    await page.getByLabel('Interface language').selectOption('ja');
    expect((await saved).status()).toBe(200);
    await expect(html).toHaveAttribute('lang', 'ja');
    await expect(page.getByRole('dialog', { name: 'プロフィール設定' })).toBeVisible();
    expect((await me(page, token)).language).toBe('ja');
    expect(await storedLanguage(page)).toBe('ja');

    await page.reload();
    await expect(html).toHaveAttribute('lang', 'ja');
    await expect(page.getByRole('button', { name: 'ログアウト' })).toBeVisible();
    await page.getByTestId('current-user').click();
    saved = profileSaved(page);
    await page.getByLabel('表示言語').selectOption('en');
    await saved;
    await expect(page.getByRole('dialog', { name: 'Profile settings' })).toBeVisible();
    expect((await me(page, token)).language).toBe('en');

    await page.reload();
    await expect(html).toHaveAttribute('lang', 'en');
    expect(await storedLanguage(page)).toBe('en');
  });

  test("a signed-in start takes the profile's language over the stored one", async ({ page }) => {
    const user = newUser('profilelang');
    const token = await registerViaApi(page, user);
    const saved = await page.request.put('/api/users/profile', {
      headers: { Authorization: `Bearer ${token}` },
      data: { language: 'de' },
    });
    expect(saved.status()).toBe(200);
    await page.goto('/login');
    await page.evaluate((value) => {
      localStorage.setItem('token', value);
      localStorage.setItem('i18nextLng', 'fr');
    }, token);
    await page.goto('/dashboard');
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await expect(page.getByRole('button', { name: 'Abmelden' })).toBeVisible();
    expect(await storedLanguage(page)).toBe('de');

    // Signing in elsewhere brings the profile's language along.
    await page.getByRole('button', { name: 'Abmelden' }).click();
    await page.getByLabel('Sprache').selectOption('it');
    await page.getByLabel('Nome utente o indirizzo email').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Accedi' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  });

  test('a visitor gets the browser language, then the stored choice', async ({ browser, baseURL }) => {
    const context = await browser.newContext({ baseURL, locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto('/login');
    await expect(page.getByRole('heading', { name: 'Willkommen zurück' })).toBeVisible();
    expect(await storedLanguage(page)).toBe('de');

    await page.goto('/language-test');
    await expect(page.getByRole('heading', { name: 'Sprachtest', level: 1 })).toBeVisible();
    const navigator = page.locator('[data-source="navigator"]');
    await expect(navigator).toContainText('de-DE');
    await expect(navigator).toContainText('Deutsch');
    // The page's <html lang> follows the interface language, and the test page says so.
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await expect(page.locator('[data-source="htmlTag"] .language-test__source-value')).toHaveText('de');
    await expect(page.getByText('vor 5 Minuten')).toBeVisible();

    await page.getByRole('button', { name: /Français/ }).click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await expect(page.getByRole('heading', { name: 'Test de langue', level: 1 })).toBeVisible();
    await expect(page.getByRole('button', { name: /Français/ })).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByText('il y a 5 minutes')).toBeVisible();
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await context.close();
  });

  test('the smart test page tells how start-up chose and what detection finds', async ({
    browser,
    baseURL,
  }) => {
    const context = await browser.newContext({ baseURL, locale: 'es-ES' });
    const page = await context.newPage();
    // No stored choice: the query string is the first detection source.
    await page.goto('/smart-language-test?lng=it');
    await expect(page.locator('html')).toHaveAttribute('lang', 'it');
    await expect(page.getByTestId('startup-source')).toHaveText('Rilevata automaticamente: italiano.');
    await expect(page.locator('[data-source="querystring"]')).toContainText('it');
    await expect(page.getByTestId('automatic-language')).toContainText('italiano');

    await page.goto('/smart-language-test');
    await expect(page.getByTestId('startup-source')).toHaveText(
      'La tua scelta salvata su questo dispositivo: italiano.',
    );
    await expect(page.getByTestId('automatic-language')).toContainText('spagnolo');
    await page.getByRole('button', { name: 'Cambia lingua: spagnolo' }).click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'es');
    await expect(
      page.getByRole('heading', { name: 'Detección inteligente del idioma', level: 1 }),
    ).toBeVisible();
    await context.close();
  });

  test('<html lang> follows the interface language on every page, at start-up and on change', async ({
    browser,
    baseURL,
  }) => {
    const context = await browser.newContext({ baseURL, locale: 'ru-RU' });
    const page = await context.newPage();
    const html = page.locator('html');
    await page.goto('/language-test');
    await expect(page.getByRole('heading', { name: 'Проверка языка', level: 1 })).toBeVisible();
    await expect(html).toHaveAttribute('lang', 'ru');
    const htmlTagValue = page.locator('[data-source="htmlTag"] .language-test__source-value');
    await expect(htmlTagValue).toHaveText('ru');

    await page.getByRole('button', { name: /日本語/ }).click();
    await expect(html).toHaveAttribute('lang', 'ja');
    await expect(htmlTagValue).toHaveText('ja');

    for (const path of [
      '/login',
      '/register',
      '/forgot-password',
      '/reset-password',
      '/smart-language-test',
    ]) {
      await page.goto(path);
      await expect(html, path).toHaveAttribute('lang', 'ja');
    }
    await page.goto('/login');
    await page.getByLabel('言語').selectOption('pt');
    await expect(html).toHaveAttribute('lang', 'pt');
    await expect(page.getByRole('button', { name: 'Iniciar sessão' })).toBeVisible();

    const token = await registerViaApi(page, newUser('htmllang'));
    const saved = await page.request.put('/api/users/profile', {
      headers: { Authorization: `Bearer ${token}` },
      data: { language: 'it' },
    });
    expect(saved.status()).toBe(200);
    await page.evaluate((value) => localStorage.setItem('token', value), token);
    await page.goto('/dashboard');
    await expect(page.getByRole('button', { name: 'Esci' })).toBeVisible();
    await expect(html).toHaveAttribute('lang', 'it');
    await context.close();
  });

  test('the language test page keeps words whole on desktop', async ({ browser, baseURL }) => {
    for (const locale of ['ru-RU', 'de-DE', 'pt-PT']) {
      const context = await browser.newContext({ baseURL, locale, viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto('/language-test');
      await expect(page.locator('.language-test__language')).toHaveCount(8);
      // Each name in a language tile (native and translated) stays on one line.
      const wrapped = await page.locator('.language-test__language-text > span').evaluateAll((spans) =>
        spans
          .filter((span) => {
            const lineHeight = Number.parseFloat(getComputedStyle(span).lineHeight);
            return span.getBoundingClientRect().height > lineHeight * 1.5;
          })
          .map((span) => span.textContent),
      );
      expect(wrapped, locale).toEqual([]);
      await context.close();
    }
  });
});
