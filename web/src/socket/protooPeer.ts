/**
 * protoo-client as ReconnectingPeer's transport. Its WebSocketTransport runs on the
 * browser's own WebSocket (the `websocket` package resolves to it through its browser
 * field) and speaks the `protoo` subprotocol. Its built-in retry is switched off:
 * ReconnectingPeer owns the schedule.
 */
import { Peer, WebSocketTransport } from 'protoo-client';
import type { RequestMap, TransportPeer } from './ReconnectingPeer.ts';

export function createProtooPeer<R extends RequestMap<R>>(url: string): TransportPeer<R> {
  return new Peer(new WebSocketTransport(url, { retry: { retries: 0 } }));
}
