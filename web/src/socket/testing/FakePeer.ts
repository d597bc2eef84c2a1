/** A stand-in for a protoo-client Peer that a test drives by hand: one connection attempt. */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';
import type { RequestMap, TransportPeer } from '../ReconnectingPeer.ts';

export class FakePeer<R extends RequestMap<R>> extends EventEmitter implements TransportPeer<R> {
  connected = false;
  closed = false;
  closeCode: number | null = null;
  readonly request = vi.fn<TransportPeer<R>['request']>();

  constructor(readonly url: string) {
    super();
  }

  override on(event: string, handler: (...args: never[]) => void): this {
    return super.on(event, handler as (...args: unknown[]) => void);
  }

  open(): void {
    this.connected = true;
    this.emit('open');
  }

  /** The connection dropped after it was open. */
  drop(): void {
    this.connected = false;
    this.emit('disconnected');
  }

  /** The server shut down while the connection was open (WebSocket code 1001). */
  goAway(): void {
    this.connected = false;
    this.closeCode = 1001;
    this.emit('disconnected');
  }

  /** The attempt failed before it opened. */
  fail(): void {
    this.emit('failed', 1);
  }

  /** The server closed the connection (protoo code 4000). */
  serverClose(): void {
    this.connected = false;
    this.emit('close');
  }

  notify(method: string, data: unknown): void {
    this.emit('notification', { notification: true, method, data });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.connected = false;
    this.emit('close');
  }
}

/** Every peer a factory made, oldest first, and the factory. */
export function fakePeers<R extends RequestMap<R>>() {
  const peers: FakePeer<R>[] = [];
  return {
    peers,
    last: () => peers.at(-1) as FakePeer<R>,
    create: (url: string) => {
      const peer = new FakePeer<R>(url);
      peers.push(peer);
      return peer;
    },
  };
}
