/**
 * A person with the app open in too many places (issue 7 item 4): the oldest tab's socket
 * is closed by the server, the tab says so and does not fight its way back (which would
 * close another tab, and so on), and comes back only when asked.
 */
import { SOCKETS_PER_USER_MAX } from '@voice/protocol';
import { expect, newUser, registerViaApi, test } from '../support/fixtures.ts';

test('the oldest tab is told it was closed for too many tabs, and reconnects only when asked', async ({
  page,
}) => {
  const token = await registerViaApi(page, newUser('tabs'));
  // Stored before the app starts: stored into a page already running, the token could be read by
  // that page's session restore, whose socket the wait below would take for the dashboard's.
  await page.addInitScript((t) => {
    localStorage.setItem('token', t);
    localStorage.setItem('i18nextLng', 'en');
  }, token);
  const appSocket = page.waitForEvent('websocket', (ws) => new URL(ws.url()).pathname === '/ws');
  await page.goto('/dashboard');
  await appSocket;

  // The same person opens the app in SOCKETS_PER_USER_MAX other places (raw sockets, from the page).
  const wsUrl = new URL('/ws', page.url());
  wsUrl.protocol = wsUrl.protocol.replace('http', 'ws');
  wsUrl.searchParams.set('token', token);
  await page.evaluate(
    async ([url, n]) => {
      const others = Array.from({ length: n as number }, () => new WebSocket(url as string, 'protoo'));
      (window as unknown as { others: WebSocket[] }).others = others;
      await Promise.all(others.map((ws) => new Promise((resolve) => ws.addEventListener('open', resolve))));
    },
    [wsUrl.toString(), SOCKETS_PER_USER_MAX],
  );

  const banner = page.getByText('This tab no longer gets live updates', { exact: false });
  await expect(banner).toBeVisible();
  // It stays closed: no new app socket in the next few seconds, so the other places keep theirs.
  const reconnected = page.waitForEvent('websocket', {
    predicate: (ws) => new URL(ws.url()).pathname === '/ws',
    timeout: 4000,
  });
  await expect(reconnected).rejects.toThrow();
  expect(
    await page.evaluate(
      () =>
        (window as unknown as { others: WebSocket[] }).others.filter((ws) => ws.readyState === WebSocket.OPEN)
          .length,
    ),
  ).toBe(SOCKETS_PER_USER_MAX);

  // Asked to, it reconnects; now the oldest of the others makes way.
  const back = page.waitForEvent('websocket', (ws) => new URL(ws.url()).pathname === '/ws');
  await page.getByRole('button', { name: 'Reconnect here' }).click();
  await back;
  await expect(banner).toBeHidden();
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          (window as unknown as { others: WebSocket[] }).others.filter(
            (ws) => ws.readyState === WebSocket.OPEN,
          ).length,
      ),
    )
    .toBe(SOCKETS_PER_USER_MAX - 1);
});
