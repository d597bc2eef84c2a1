/**
 * A missed call (issue 19, item 7): Alice calls Bob, who does not answer, and hangs up. Bob's
 * page says "Missed call from Alice" with a way to call back, and the Calls tab counts it
 * until he looks at the history. A call he declines himself is not missed.
 */
import type { Page } from '@playwright/test';
import { befriend, createPerson, openDashboardAs } from '@voice/browser-bots';
import { expect, test } from '../support/callBrowser.ts';

const friendRow = (page: Page, name: string) =>
  page.getByRole('list', { name: 'Friends' }).getByRole('listitem').filter({ hasText: name });
const callRegion = (page: Page, name: string) => page.getByRole('region', { name: `Call with ${name}` });

test('a call nobody answered: a toast with call back, and a badge on the Calls tab until it is seen', async ({
  baseURL,
  launchCallBrowser,
}) => {
  const alice = await createPerson(baseURL as string, 'Alice');
  const bob = await createPerson(baseURL as string, 'Bob');
  await befriend(baseURL as string, alice, bob);
  const a = await launchCallBrowser({ baseURL: baseURL as string });
  const b = await launchCallBrowser({ baseURL: baseURL as string });
  for (const [page, person] of [
    [a.page, alice],
    [b.page, bob],
  ] as const) {
    await openDashboardAs(page, person);
    await page.getByRole('tab', { name: 'Friends' }).click();
  }
  await expect(friendRow(a.page, 'Bob')).toContainText('Online');

  // Declined by Bob himself: not a missed call.
  await friendRow(a.page, 'Bob').getByRole('button', { name: 'Call Bob' }).click();
  await b.page.getByRole('alertdialog').getByRole('button', { name: 'Decline' }).click();
  await expect(b.page.getByRole('alertdialog')).toBeHidden();
  await expect(b.page.getByText('Missed call from Alice')).toHaveCount(0);

  // Rung and given up by Alice: missed.
  await friendRow(a.page, 'Bob').getByRole('button', { name: 'Call Bob' }).click();
  await expect(b.page.getByRole('alertdialog')).toBeVisible();
  await callRegion(a.page, 'Bob')
    .getByRole('button', { name: /Cancel|Leave call/ })
    .click();
  await expect(b.page.getByRole('alertdialog')).toBeHidden();
  const toast = b.page.getByRole('status').filter({ hasText: 'Missed call from Alice' });
  await expect(toast).toBeVisible();
  const callsTab = b.page.getByRole('tab', { name: /^Calls/ });
  await expect(callsTab).toContainText('1');

  // Looking at the history is seeing it.
  await callsTab.click();
  await expect(callsTab).not.toContainText('1');
  await expect(toast).toHaveCount(0);
});
