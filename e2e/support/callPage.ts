/**
 * The call tests' view of a person's page: the friend row to call from, the call's region, the
 * ringing dialog; and the steps every call test starts with (two friends, their dashboards,
 * one calling the other).
 */
import type { Page } from '@playwright/test';
import { befriend, createPerson, openDashboardAs, type Person } from '@voice/browser-bots';
import { expect } from './fixtures.ts';

/** The friend row of `name` on the Friends tab. */
export function friendRow(page: Page, name: string) {
  return page.getByRole('list', { name: 'Friends' }).getByRole('listitem').filter({ hasText: name });
}

/** The call card (or minimized bar) of a call with `name`. */
export const callRegion = (page: Page, name: string) =>
  page.getByRole('region', { name: `Call with ${name}` });

/** The incoming call's dialog. */
export const incoming = (page: Page) => page.getByRole('alertdialog');

/** Alice and Bob, new accounts and friends. */
export async function aliceAndBob(baseURL: string | undefined): Promise<{ alice: Person; bob: Person }> {
  if (!baseURL) throw new Error('no baseURL');
  const alice = await createPerson(baseURL, 'Alice');
  const bob = await createPerson(baseURL, 'Bob');
  await befriend(baseURL, alice, bob);
  return { alice, bob };
}

/** Opens `person`'s dashboard on the Friends tab and waits until each friend in `online` shows online. */
export async function openFriends(page: Page, person: Person, online: Person[] = []): Promise<void> {
  await openDashboardAs(page, person);
  await page.getByRole('tab', { name: 'Friends' }).click();
  for (const friend of online) {
    await expect(friendRow(page, friend.displayName)).toContainText('Online');
  }
}

/** `caller` calls `calleeName` from the Friends tab; the callee's page shows the incoming call. */
export async function ring(caller: Page, callee: Page, calleeName: string): Promise<void> {
  await friendRow(caller, calleeName)
    .getByRole('button', { name: `Call ${calleeName}` })
    .click();
  await expect(incoming(callee)).toBeVisible();
}
