/** The app socket's REST side (/socket/*): a single-use ticket for each handshake. */
import { SOCKET_ROUTES, type SocketTicketResponse } from '@voice/protocol';
import { apiRequest } from './client.ts';

export const socketApi = {
  ticket: () => apiRequest<SocketTicketResponse>(SOCKET_ROUTES.ticket, { method: 'POST' }),
};
