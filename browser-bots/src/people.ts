/**
 * People for multi-person browser tests, made through the real API: accounts with a finished
 * onboarding, friendships, and a page signed in as one of them.
 */
import { expect, type Page } from '@playwright/test';

/** One person: account, session token and id. */
export interface Person {
  id: string;
  username: string;
  displayName: string;
  token: string;
}

/** Calls the API at `baseURL`; throws with the answer on any status but 2xx. */
export async function apiCall<T>(
  baseURL: string,
  route: string,
  { token, method = 'GET', body }: { token?: string; method?: string; body?: unknown } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${baseURL}/api${route}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * Registers a person named `displayName` who finished onboarding: with `username` when given
 * (else a unique one made from the name) and a stock `avatar` when given.
 */
export async function createPerson(
  baseURL: string,
  displayName: string,
  { username, avatar }: { username?: string; avatar?: string } = {},
): Promise<Person> {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const name = username ?? `${displayName.toLowerCase().replace(/\W/g, '')}_${suffix}`.slice(0, 32);
  const { token, user } = await apiCall<{ token: string; user: { id: string } }>(baseURL, '/auth/register', {
    method: 'POST',
    body: {
      username: name,
      email: `${name}@voice.test`,
      password: `pw-${name}-Secret`,
      displayName,
      acceptTerms: true,
      language: 'en',
    },
  });
  await apiCall(baseURL, '/users/profile', {
    method: 'PUT',
    token,
    body: { display_name: displayName, completeOnboarding: true, ...(avatar ? { avatar } : {}) },
  });
  return { id: user.id, username: name, displayName, token };
}

export async function befriend(baseURL: string, a: Person, b: Person): Promise<void> {
  await apiCall(baseURL, '/users/friend-request', { method: 'POST', token: a.token, body: { userId: b.id } });
  await apiCall(baseURL, '/users/friend-request/accept', {
    method: 'POST',
    token: b.token,
    body: { userId: a.id },
  });
}

/**
 * Signs `page` in as `person` (the stored token, as the app keeps it) and opens the dashboard.
 * Waits up to 30 s for it: a fourth browser starting the app beside three in a room shares two
 * cores with them (its dashboard measured past 10 s there).
 */
export async function openDashboardAs(page: Page, person: Person): Promise<void> {
  await page.goto('/login');
  await page.evaluate((token) => localStorage.setItem('token', token), person.token);
  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { name: `Welcome, ${person.displayName}!` })).toBeVisible({
    timeout: 30_000,
  });
}
