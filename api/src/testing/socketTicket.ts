/**
 * The app socket's way in, as a tab takes it: a ticket for the session token
 * (POST SOCKET_ROUTES.ticket), then `/ws?ticket=…`. For tests, e2e and the benchmarks.
 */
import { API_BASE, APP_SOCKET_PATH, SOCKET_ROUTES, type SocketTicketResponse } from '@voice/protocol';

/** A fresh socket ticket for `token`'s session; throws with the status when the API refuses. */
export async function socketTicket(baseUrl: string, token: string): Promise<string> {
  const response = await fetch(`${baseUrl}${API_BASE}${SOCKET_ROUTES.ticket}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw new Error(`socket ticket refused: ${response.status} ${await response.text()}`);
  return ((await response.json()) as SocketTicketResponse).ticket;
}

/** The app socket's URL on `baseUrl` (http or https) with `ticket`. */
export function appSocketUrl(baseUrl: string, ticket: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}${APP_SOCKET_PATH}?ticket=${encodeURIComponent(ticket)}`;
}

/** The app socket's URL with a new ticket for `token`'s session. */
export async function ticketedSocketUrl(baseUrl: string, token: string): Promise<string> {
  return appSocketUrl(baseUrl, await socketTicket(baseUrl, token));
}
