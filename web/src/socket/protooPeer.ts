/**
 * protoo-client as the app socket's transport. Its WebSocketTransport runs on the
 * browser's own WebSocket (the `websocket` package resolves to it through its browser
 * field) and speaks the `protoo` subprotocol. Its built-in retry is switched off:
 * AppSocket owns the schedule.
 */
import { Peer, WebSocketTransport } from 'protoo-client';
import type { PeerFactory, SocketPeer } from './AppSocket.ts';

export const createProtooPeer: PeerFactory = (url) => {
  const peer: SocketPeer = new Peer(new WebSocketTransport(url, { retry: { retries: 0 } }));
  return peer;
};
