/**
 * protoo-client as ReconnectingPeer's transport. Its WebSocketTransport runs on the
 * browser's own WebSocket (the `websocket` package resolves to it through its browser
 * field) and speaks the `protoo` subprotocol. Its built-in retry is switched off:
 * ReconnectingPeer owns the schedule.
 */
import { Peer, WebSocketTransport } from 'protoo-client';
import type { RequestMap, TransportPeer } from './ReconnectingPeer.ts';

export function createProtooPeer<R extends RequestMap<R>>(url: string): TransportPeer<R> {
  const transport = new WebSocketTransport(url, { retry: { retries: 0 } });
  const peer = new Peer(transport);
  let closeCode: number | null = null;
  watchCloseCode(transport, (code) => {
    closeCode = code;
  });
  Object.defineProperty(peer, 'closeCode', { get: () => closeCode });
  return peer as Peer & { readonly closeCode: number | null };
}

interface ClosableSocket {
  onclose: ((event: { code: number }) => void) | null;
}

/**
 * protoo-client tells 'disconnected' without the close code. It keeps its WebSocket in `_ws`
 * (a new one per attempt) with its own `onclose`: wrapped, the code is known before protoo
 * emits. The first socket exists already; a later one gets its `onclose` in the same task.
 */
function watchCloseCode(transport: WebSocketTransport, onClose: (code: number) => void): void {
  const internal = transport as unknown as { _ws: ClosableSocket | null };
  const wrap = (ws: ClosableSocket | null) => {
    const original = ws?.onclose;
    if (!ws || !original) return;
    ws.onclose = (event) => {
      onClose(event.code);
      original.call(ws, event);
    };
  };
  let current = internal._ws;
  wrap(current);
  Object.defineProperty(internal, '_ws', {
    configurable: true,
    get: () => current,
    set: (ws: ClosableSocket | null) => {
      current = ws;
      queueMicrotask(() => wrap(ws));
    },
  });
}
