/** The whole account flow against the real API, with mail read from a real SMTP listener. */
import { expect, logInViaUi, newUser, registerViaApi, storedToken, test } from '../support/fixtures.ts';

test.describe('accounts', () => {
  test('registers with the live username check, onboards and lands on the dashboard', async ({ page }) => {
    const existing = newUser('taken');
    await registerViaApi(page, existing);
    const user = newUser('alice');

    await page.goto('/register');
    await expect(page.getByRole('heading', { name: 'Create your account' })).toBeVisible();
    const username = page.getByLabel('Username');

    await username.fill(existing.username);
    await expect(page.getByText('Username is already taken')).toBeVisible();
    await expect(username).toHaveAttribute('aria-invalid', 'true');

    await username.fill('ab');
    await expect(page.getByText('Username must be at least 3 characters')).toBeVisible();

    await username.fill(user.username);
    await expect(page.getByText('Username is available')).toBeVisible();
    await expect(username).not.toHaveAttribute('aria-invalid', 'true');

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByLabel('Confirm password').fill(`${user.password}x`);
    await page.getByLabel('Display name').fill(user.displayName);
    await page.getByRole('button', { name: 'Create account' }).click();
    // Client-side rules stop the form before the server is asked.
    await expect(page.getByText('Passwords do not match')).toBeVisible();
    await expect(page.getByText('You must accept the Terms of Service')).toBeVisible();
    await expect(page.getByLabel('Confirm password')).toBeFocused();

    await page.getByLabel('Confirm password').fill(user.password);
    await page.getByLabel('I accept the Terms of Service').check();
    await page.getByRole('button', { name: 'Create account' }).click();

    // A new account sets up its profile first; the display name given at sign-up is kept.
    await expect(page).toHaveURL(/\/onboarding$/);
    await expect(page.getByLabel('Display name')).toHaveValue(user.displayName);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Set it later' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByTestId('current-user')).toContainText(user.displayName);
    await expect(page.getByTestId('current-user')).toContainText(`@${user.username}`);
    expect(await storedToken(page)).toBeTruthy();
  });

  test('rejects an email that is already registered', async ({ page }) => {
    const existing = newUser('bob');
    await registerViaApi(page, existing);
    const user = newUser('bobby');

    await page.goto('/register');
    await page.getByLabel('Username').fill(user.username);
    await expect(page.getByText('Username is available')).toBeVisible();
    await page.getByLabel('Email').fill(existing.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByLabel('Confirm password').fill(user.password);
    await page.getByLabel('I accept the Terms of Service').check();
    await page.getByRole('button', { name: 'Create account' }).click();

    await expect(page.getByText('Email is already registered')).toBeVisible();
    await expect(page.getByLabel('Email')).toHaveAttribute('aria-invalid', 'true');
    await expect(page).toHaveURL(/\/register$/);
  });

  test('logs out and back in; keeps the session across a reload', async ({ page }) => {
    const user = newUser('carol');
    await registerViaApi(page, user);

    await page.goto('/login');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toHaveText('Please fill in all fields');

    await page.getByLabel('Username or email').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toHaveText('Invalid username or password');
    await expect(page).toHaveURL(/\/login$/);

    // The email works as the login name too.
    await logInViaUi(page, user.email, user.password);
    await expect(page.getByTestId('current-user')).toContainText(user.displayName);

    await page.reload();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByTestId('current-user')).toContainText(user.displayName);

    // Visitor pages send a signed-in user to the dashboard.
    await page.goto('/login');
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/');
    await expect(page).toHaveURL(/\/dashboard$/);

    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    expect(await storedToken(page)).toBeNull();
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/login$/);

    await logInViaUi(page, user.username, user.password);
    await expect(page.getByTestId('current-user')).toContainText(`@${user.username}`);
  });

  test('resets a forgotten password through the emailed link', async ({ page, mailbox, baseURL }) => {
    const user = newUser('dave');
    await registerViaApi(page, user);
    const newPassword = `${user.password}-new`;

    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    // The sign-in page stays on screen until the next page's code is in; its "Username or email"
    // field would take the email otherwise.
    await expect(page.getByRole('heading', { name: 'Forgot your password?' })).toBeVisible();
    const since = mailbox.count;
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
    await expect(page.getByText(user.email)).toBeVisible();

    const { mail } = await mailbox.waitForMessageTo(user.email, { since });
    const body = `${mail.text ?? ''}\n${typeof mail.html === 'string' ? mail.html : ''}`;
    const link = body.match(/https?:\/\/[^\s"'<>]+\/reset-password\?token=[^\s"'<>&]+/)?.[0];
    expect(link, `reset link in:\n${body}`).toBeTruthy();
    expect(link?.startsWith(`${baseURL}/reset-password?token=`)).toBe(true);

    await page.goto(link as string);
    await expect(page.getByRole('heading', { name: 'Set a new password' })).toBeVisible();
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirm password').fill(`${newPassword}!`);
    await page.getByRole('button', { name: 'Save new password' }).click();
    await expect(page.getByText('Passwords do not match')).toBeVisible();

    await page.getByLabel('Confirm password').fill(newPassword);
    await page.getByRole('button', { name: 'Save new password' }).click();
    await expect(page.getByRole('heading', { name: 'Password changed' })).toBeVisible();

    // A used link is spent.
    await page.goto(link as string);
    await expect(page.getByRole('heading', { name: 'Link invalid or expired' })).toBeVisible();

    await page.goto('/login');
    await page.getByLabel('Username or email').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toHaveText('Invalid username or password');

    await logInViaUi(page, user.username, newPassword);
    await expect(page.getByTestId('current-user')).toContainText(user.displayName);
  });

  test('shows the invalid state for a bad or missing reset link', async ({ page }) => {
    await page.goto('/reset-password?token=not-a-real-token');
    await expect(page.getByRole('heading', { name: 'Link invalid or expired' })).toBeVisible();
    await expect(
      page.getByText('This password reset link is invalid or has expired. Please request a new one.'),
    ).toBeVisible();
    await page.getByRole('link', { name: 'Request a new link' }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);

    await page.goto('/reset-password');
    await expect(page.getByRole('heading', { name: 'Link invalid or expired' })).toBeVisible();
  });

  test('a 401 from any call ends the session and opens /login', async ({ page }) => {
    const user = newUser('erin');
    await registerViaApi(page, user);
    await logInViaUi(page, user.username, user.password);
    const token = await storedToken(page);

    // The session is revoked elsewhere (as by logging out in another tab)...
    const logout = await page.request.post('/api/auth/logout', {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(logout.status()).toBe(204);
    // ...so the next call the app makes, a profile refresh on focus, answers 401.
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));

    await expect(page).toHaveURL(/\/login$/);
    expect(await storedToken(page)).toBeNull();
  });

  test('a stale token is dropped silently at start-up', async ({ page }) => {
    await page.addInitScript(() => {
      if (!sessionStorage.getItem('seeded')) {
        sessionStorage.setItem('seeded', '1');
        localStorage.setItem('token', 'stale.token.value');
      }
    });
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(0);
    expect(await storedToken(page)).toBeNull();
  });

  test('each visitor form has its first field focused on load', async ({ page, mailbox }) => {
    await page.goto('/login');
    await expect(page.getByLabel('Username or email')).toBeFocused();
    await page.goto('/register');
    await expect(page.getByLabel('Username')).toBeFocused();
    await page.goto('/forgot-password');
    await expect(page.getByLabel('Email')).toBeFocused();
    // Moving between the pages focuses the new page's first field too.
    await page.getByRole('link', { name: 'Sign in' }).click();
    await expect(page.getByLabel('Username or email')).toBeFocused();

    const user = newUser('focus');
    await registerViaApi(page, user);
    const since = mailbox.count;
    const asked = await page.request.post('/api/auth/forgot-password', { data: { email: user.email } });
    expect(asked.ok()).toBe(true);
    const { mail } = await mailbox.waitForMessageTo(user.email, { since });
    const link = (mail.text ?? '').match(/https?:\/\/[^\s"'<>]+\/reset-password\?token=[^\s"'<>&]+/)?.[0];
    expect(link, mail.text).toBeTruthy();
    await page.goto(link as string);
    await expect(page.getByRole('heading', { name: 'Set a new password' })).toBeVisible();
    await expect(page.getByLabel('New password', { exact: true })).toBeFocused();
  });

  test('unknown paths lead a visitor to /login', async ({ page }) => {
    await page.goto('/no/such/page');
    await expect(page).toHaveURL(/\/login$/);
  });
});
