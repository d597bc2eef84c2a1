/**
 * One protoo endpoint (the app socket at /ws, a media server's /rtc): a protoo-server
 * WebSocketServer that listens to nothing by itself and takes the upgrades an
 * UpgradeRouter hands it. Every accepted transport is guarded (frameGuard.ts) before
 * protoo sees a frame.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import protoo from 'protoo-server';
import { type FrameGuardOptions, guardProtooTransport } from './frameGuard.ts';

/** Where an UpgradeRouter sends the upgrades of one path. */
export interface UpgradeTarget {
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** What the endpoint knows of a connection request. */
export interface ConnectionRequest {
  request: IncomingMessage;
  url: URL;
  /** The browser's Origin header; undefined for other clients. */
  origin: string | undefined;
}

/** Accepts a connection request: the guarded transport, or null if it could not be guarded (closed). */
export type AcceptConnection = () => protoo.WebSocketTransport | null;
export type RejectConnection = (status: number, reason: string) => void;

/** Options of a ProtooEndpoint. */
export interface ProtooEndpointOptions {
  /** Largest frame and message, in bytes. */
  maxMessageBytes: number;
  /** Decides on each connection request; a rejection it throws answers 500. */
  onConnectionRequest(
    request: ConnectionRequest,
    accept: AcceptConnection,
    reject: RejectConnection,
  ): Promise<void> | void;
  /** Told of refused frames and failed handshakes; must not throw. */
  onProblem(message: string, fields: Record<string, unknown>): void;
  frameGuard?: Omit<FrameGuardOptions, 'onInvalid'>;
}

export class ProtooEndpoint implements UpgradeTarget {
  readonly #hub = new EventEmitter();
  readonly #server: protoo.WebSocketServer;
  /** The endpoint's peers: protoo's Room is a map of them that closes them all at once. */
  readonly #peers = new protoo.Room();
  /** Accepted transports still open, for close() to end with "going away". */
  readonly #transports = new Set<protoo.WebSocketTransport>();
  #closed = false;

  constructor(options: ProtooEndpointOptions) {
    // protoo mounts on anything with on('upgrade'): here a private hub the router feeds.
    this.#server = new protoo.WebSocketServer(this.#hub as unknown as Server, {
      maxReceivedFrameSize: options.maxMessageBytes,
      maxReceivedMessageSize: options.maxMessageBytes,
    });
    this.#server.on('connectionrequest', (info, protooAccept, protooReject) => {
      const reject: RejectConnection = (status, reason) => protooReject(status, reason);
      const accept: AcceptConnection = () => {
        const transport = protooAccept();
        this.#transports.add(transport);
        // protoo's transport is an EventEmitter; its typings leave that out.
        (transport as unknown as EventEmitter).once('close', () => this.#transports.delete(transport));
        let warned = false;
        try {
          // In the same tick as accept(): no frame reaches protoo unchecked.
          guardProtooTransport(transport, {
            ...options.frameGuard,
            onInvalid: (reason) => {
              // One line per socket: a flood of junk must not flood the log too.
              if (!warned) options.onProblem('dropped an invalid frame', { reason });
              warned = true;
            },
          });
        } catch (error) {
          options.onProblem('cannot guard frames; connection closed', { error });
          transport.close();
          return null;
        }
        return transport;
      };
      const request: ConnectionRequest = {
        request: info.request,
        url: new URL(info.request.url ?? '/', 'http://localhost'),
        origin: info.origin,
      };
      Promise.resolve()
        .then(() => options.onConnectionRequest(request, accept, reject))
        .catch((error: unknown) => {
          options.onProblem('handshake failed', { error });
          reject(500, 'Server error');
        });
    });
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.#closed) {
      socket.destroy();
      return;
    }
    this.#hub.emit('upgrade', request, socket, head);
  }

  /** Makes the protoo peer of an accepted transport; `id` must be unique on this endpoint. */
  createPeer(id: string, transport: protoo.WebSocketTransport): protoo.Peer {
    return this.#peers.createPeer(id, transport);
  }

  /** The open peer named `id`, if any. */
  peer(id: string): protoo.Peer | undefined {
    return this.#peers.hasPeer(id) ? this.#peers.getPeer(id) : undefined;
  }

  get peerCount(): number {
    return this.#peers.peers.length;
  }

  /**
   * Stops taking connections and closes every open one with WebSocket code 1001 ("going
   * away"): the server is shutting down, so clients reconnect at once (to another node when
   * there is one) rather than treat it as protoo's 4000, a close meant for them. Safe to call
   * more than once.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#server.stop();
    for (const transport of this.#transports) goingAway(transport);
    this.#transports.clear();
    this.#peers.close();
  }
}

/** The close frame protoo-server's own close() would send carries 4000; this one 1001. */
function goingAway(transport: protoo.WebSocketTransport): void {
  // protoo keeps the websocket connection private; once it is closing, protoo's close is a no-op.
  const connection = (transport as unknown as { _connection?: { close(code: number, reason: string): void } })
    ._connection;
  try {
    connection?.close(GOING_AWAY, 'server shutting down');
  } catch {
    // Already gone: protoo's close() below cleans up.
  }
}

const GOING_AWAY = 1001;
