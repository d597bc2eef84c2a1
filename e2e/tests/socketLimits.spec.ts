/**
 * A person with the app open in too many places (issue 7 item 4): the oldest tab's socket
 * is closed by the server, the tab says so and does not fight its way back (which would
 * close another tab, and so on), and comes back only when asked.
 */
import { API_BASE, SOCKET_ROUTES, SOCKETS_PER_USER_MAX } from '@voice/protocol';
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
  // The session token stays out of the socket's URL (and so out of proxy logs): a ticket opens it.
  const socketUrl = new URL((await appSocket).url());
  expect([...socketUrl.searchParams.keys()]).toEqual(['ticket']);
  expect(socketUrl.toString()).not.toContain(token);

  // The same person opens the app in SOCKETS_PER_USER_MAX other places (raw sockets, from the
  // page), each with a ticket of its own as a tab gets it.
  await page.evaluate(
    async ([ticketRoute, session, n]) => {
      const open = async () => {
        const reply = await fetch(ticketRoute as string, {
          method: 'POST',
          headers: { authorization: `Bearer ${session}` },
        });
        if (!reply.ok) throw new Error(`ticket ${reply.status} ${await reply.text()}`);
        const { ticket } = (await reply.json()) as { ticket: string };
        const url = new URL(`/ws?ticket=${encodeURIComponent(ticket)}`, location.href);
        url.protocol = url.protocol.replace('http', 'ws');
        return new WebSocket(url, 'protoo');
      };
      const others = await Promise.all(Array.from({ length: n as number }, open));
      (window as unknown as { others: WebSocket[] }).others = others;
      // Each opens, or is refused; how many stay open is checked below.
      await Promise.all(
        others.map(
          (ws) =>
            new Promise((resolve) => {
              ws.addEventListener('open', resolve);
              ws.addEventListener('close', resolve);
              setTimeout(resolve, 15_000);
            }),
        ),
      );
    },
    [`${API_BASE}${SOCKET_ROUTES.ticket}`, token, SOCKETS_PER_USER_MAX] as const,
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
    await page.evaluate(() =>
      (window as unknown as { others: WebSocket[] }).others.map((ws) => ws.readyState),
    ),
  ).toEqual(Array(SOCKETS_PER_USER_MAX).fill(1)); // WebSocket.OPEN

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
