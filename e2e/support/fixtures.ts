/**
 * Test fixtures: each Playwright worker runs one SMTP listener and one API process,
 * shared by its tests; baseURL points at that API (which serves the built web app).
 */
import path from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { ApiServer } from './ApiServer.ts';
import { Mailbox } from './Mailbox.ts';

/** The services of one worker. */
export interface Stack {
  api: ApiServer;
  mailbox: Mailbox;
}

export const test = base.extend<{ mailbox: Mailbox }, { stack: Stack }>({
  stack: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures must destructure their dependencies.
    async ({}, use, workerInfo) => {
      const mailbox = await Mailbox.start();
      const logFile = path.join(workerInfo.project.outputDir, `api-worker-${workerInfo.workerIndex}.log`);
      let api: ApiServer | undefined;
      try {
        api = await ApiServer.start({ smtpUrl: mailbox.url, logFile });
        await use({ api, mailbox });
      } finally {
        await api?.stop();
        await mailbox.close();
      }
    },
    { scope: 'worker', timeout: 90_000 },
  ],
  baseURL: async ({ stack }, use) => {
    await use(stack.api.url);
  },
  mailbox: async ({ stack }, use) => {
    await use(stack.mailbox);
  },
});

export { expect };

/** A fresh account's details; names are unique per run because the database may be shared. */
export interface TestUser {
  username: string;
  email: string;
  password: string;
  displayName: string;
}

export function newUser(label = 'user'): TestUser {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const username = `${label}_${suffix}`.slice(0, 32);
  return {
    username,
    email: `${username.toLowerCase()}@voice.test`,
    password: `pw-${suffix}-Secret`,
    displayName: `${label[0]?.toUpperCase() ?? ''}${label.slice(1)} Tester`,
  };
}

/**
 * Creates an account through the API and returns its session token. The account has
 * finished onboarding unless `onboarded: false` (new accounts are sent to /onboarding).
 */
export async function registerViaApi(
  page: Page,
  user: TestUser,
  { onboarded = true }: { onboarded?: boolean } = {},
): Promise<string> {
  const response = await page.request.post('/api/auth/register', {
    data: {
      username: user.username,
      email: user.email,
      password: user.password,
      displayName: user.displayName,
      acceptTerms: true,
      language: 'en',
    },
  });
  expect(response.status(), await response.text()).toBe(201);
  const body = (await response.json()) as { token: string };
  if (onboarded) {
    const completed = await page.request.put('/api/users/profile', {
      headers: { Authorization: `Bearer ${body.token}` },
      data: { completeOnboarding: true },
    });
    expect(completed.status(), await completed.text()).toBe(200);
  }
  return body.token;
}

/** Signs in through the login form and waits for the dashboard. */
export async function logInViaUi(page: Page, login: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** The session token the app keeps in localStorage. */
export function storedToken(page: Page): Promise<string | null> {
  return page.evaluate(() => localStorage.getItem('token'));
}
