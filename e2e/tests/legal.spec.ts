/**
 * The terms of service and privacy policy (issue 7 item 18): linked from the sign-up form,
 * open to everyone, in the interface language, and replaceable by the operator, whose
 * text is shown as text even when it contains markup.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';

test('the sign-up form links to the terms and the privacy policy', async ({ page, context }) => {
  await page.goto('/register');
  const terms = page.getByRole('link', { name: 'Terms of Service' });
  await expect(terms).toHaveAttribute('href', '/terms');
  await expect(page.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy');
  // The checkbox keeps its name, links and all.
  await expect(page.getByLabel('I accept the Terms of Service')).not.toBeChecked();

  // A new tab, so a half-filled form is not lost.
  const [termsPage] = await Promise.all([context.waitForEvent('page'), terms.click()]);
  await expect(termsPage).toHaveURL(/\/terms$/);
  await expect(termsPage.getByRole('heading', { level: 1, name: 'Terms of Service' })).toBeVisible();
  await expect(termsPage.getByRole('article')).toContainText('operator');
  await expect(termsPage).toHaveTitle('Terms of Service · Voice');
  await expect(page).toHaveURL(/\/register$/);

  await termsPage.getByRole('navigation').getByRole('link', { name: 'Privacy Policy' }).click();
  await expect(termsPage).toHaveURL(/\/privacy$/);
  const policy = termsPage.getByRole('article');
  await expect(policy.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  await expect(policy.getByRole('heading', { name: 'What is kept' })).toBeVisible();
  await expect(policy.getByRole('listitem').filter({ hasText: 'Call records' })).toBeVisible();

  // In the interface language.
  await termsPage.getByLabel('Language').selectOption('de');
  await expect(policy.getByRole('heading', { level: 1, name: 'Datenschutzerklärung' })).toBeVisible();
});

test('is open to signed-in users too', async ({ page }) => {
  const token = await registerViaApi(page, newUser('legal'));
  await page.goto('/login');
  await page.evaluate((value) => localStorage.setItem('token', value), token);
  await page.goto('/terms');
  await expect(page).toHaveURL(/\/terms$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Terms of Service' })).toBeVisible();
});

test("shows the operator's own text as text, never as markup", async ({ page, stack }) => {
  const dir = path.join(stack.api.dataDir, 'legal');
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'terms.md'),
    [
      '# House rules',
      '',
      'Run by **Example Club**.',
      '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>',
      '',
      '- [Our site](https://example.org/club)',
      '- [Click me](javascript:document.title="pwned")',
    ].join('\n'),
  );
  try {
    await page.goto('/terms');
    const article = page.getByRole('article');
    await expect(article.getByRole('heading', { level: 1, name: 'House rules' })).toBeVisible();
    await expect(article.locator('strong')).toHaveText('Example Club');
    await expect(article).toContainText('<img src=x onerror="document.title=\'pwned\'"><script>');
    await expect(article.locator('img, script')).toHaveCount(0);
    await expect(article.getByRole('link', { name: 'Our site' })).toHaveAttribute(
      'href',
      'https://example.org/club',
    );
    await expect(article.getByRole('link', { name: 'Click me' })).toHaveCount(0);
    await expect(page).toHaveTitle('Terms of Service · Voice');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('legal pages in both themes at 1280 and 360 px', async ({ page }, testInfo) => {
  const dir = path.join(testInfo.project.outputDir, 'screens');
  const viewports = { desktop: { width: 1280, height: 800 }, mobile: { width: 360, height: 740 } };
  for (const [viewportName, viewport] of Object.entries(viewports)) {
    await page.setViewportSize(viewport);
    for (const theme of ['dark', 'light']) {
      for (const [name, heading, language] of [
        ['terms', 'Terms of Service', 'en'],
        ['privacy', 'Политика конфиденциальности', 'ru'],
      ] as const) {
        await page.goto('/login');
        await page.evaluate(
          ([chosenTheme, chosenLanguage]) => {
            localStorage.setItem('theme', chosenTheme as string);
            localStorage.setItem('i18nextLng', chosenLanguage as string);
          },
          [theme, language],
        );
        await page.goto(`/${name}`);
        await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${name} ${viewportName}: wider than the viewport`).toBeLessThanOrEqual(0);
        await page.screenshot({
          path: path.join(dir, `legal-${viewportName}-${theme}-${name}-${language}.png`),
          fullPage: true,
        });
      }
    }
  }
});
