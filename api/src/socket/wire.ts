/** The app socket's own route (/api/socket): tickets for its handshakes. */
import type { Infrastructure } from '../wiring.ts';
import { socketRoutes } from './routes.ts';
import { type LiveSessions, SocketTickets } from './SocketTickets.ts';

export function wireSocketTickets(
  { stores, limiter, requireAuth }: Infrastructure,
  { sessions }: { sessions: LiveSessions },
) {
  const tickets = new SocketTickets(stores.tickets, sessions);
  return { tickets, routes: [socketRoutes(tickets, limiter, requireAuth).routes()] };
}
