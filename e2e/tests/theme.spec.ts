import { expect, logInViaUi, newUser, registerViaApi, test } from '../support/fixtures.ts';

test('the theme toggle sets data-theme and survives a reload', async ({ page }) => {
  await page.goto('/login');
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-theme', 'dark');

  await page.getByRole('button', { name: 'Switch to light theme' }).click();
  await expect(html).toHaveAttribute('data-theme', 'light');
  expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('light');

  await page.reload();
  await expect(html).toHaveAttribute('data-theme', 'light');
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(html).toHaveAttribute('data-theme', 'dark');
});

test('the language picker switches the interface and remembers the choice', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
  await expect(page).toHaveTitle('Welcome back · Voice');
  await page.getByLabel('Language').selectOption('ru');
  await expect(page.getByRole('heading', { name: 'С возвращением' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await expect(page).toHaveTitle('С возвращением · Voice');
  await page.reload();
  await expect(page.getByRole('button', { name: 'Войти' })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('i18nextLng'))).toBe('ru');
});

test('the theme is kept in the profile: a new browser signed in to the account gets it', async ({
  page,
  browser,
  baseURL,
}) => {
  const user = newUser('themekeeper');
  await registerViaApi(page, user);
  await logInViaUi(page, user.username, user.password);
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-theme', 'dark');
  const saved = page.waitForResponse(
    (response) => response.url().endsWith('/api/users/profile') && response.request().method() === 'PUT',
  );
  await page.getByRole('button', { name: 'Switch to light theme' }).click();
  expect((await saved).status()).toBe(200);

  // Another browser (nothing in its storage): dark on the login page, light once signed in.
  const other = await browser.newContext({ baseURL });
  const otherPage = await other.newPage();
  await otherPage.goto('/login');
  await expect(otherPage.locator('html')).toHaveAttribute('data-theme', 'dark');
  await logInViaUi(otherPage, user.username, user.password);
  await expect(otherPage.locator('html')).toHaveAttribute('data-theme', 'light');
  // And a restored session there keeps it.
  await otherPage.reload();
  await expect(otherPage.locator('html')).toHaveAttribute('data-theme', 'light');

  // A change made there is what the first browser gets at its next start.
  await otherPage.getByRole('button', { name: 'Switch to dark theme' }).click();
  await expect
    .poll(async () => {
      const token = await otherPage.evaluate(() => localStorage.getItem('token'));
      const me = await otherPage.request.get('/api/auth/me', {
        headers: { Authorization: `Bearer ${token}` },
      });
      return ((await me.json()) as { user: { theme: string } }).user.theme;
    })
    .toBe('dark');
  await page.reload();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await other.close();
});

test('a new account keeps the theme chosen before signing up', async ({ page }) => {
  const user = newUser('newlight');
  await page.goto('/register');
  await page.getByRole('button', { name: 'Switch to light theme' }).click();
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByLabel('Confirm password').fill(user.password);
  await page.getByLabel('I accept the Terms of Service').check();
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/(onboarding|dashboard)$/);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect
    .poll(async () => {
      const token = await page.evaluate(() => localStorage.getItem('token'));
      const me = await page.request.get('/api/auth/me', { headers: { Authorization: `Bearer ${token}` } });
      return ((await me.json()) as { user: { theme: string } }).user.theme;
    })
    .toBe('light');
});
