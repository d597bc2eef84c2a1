/**
 * The media server's signalling endpoint (`/rtc`): protoo over WebSocket, one connection
 * per room member. A connection must carry a room token from the API; the room methods
 * (join, transports, producers, consumers) arrive with group rooms, and until then every
 * request is answered "method not found".
 */
import { MEDIA_SOCKET_PATH } from '@voice/protocol';
import { ProtooEndpoint, type UpgradeTarget } from '@voice/signalling';
import type { Logger } from './types.ts';

/** Who a room token says the connection belongs to. */
export interface RtcIdentity {
  peerId: string;
  roomId: string;
}

/** Checks the connection URL's room token; null refuses the connection. */
export type RtcAuthenticator = (url: URL) => Promise<RtcIdentity | null>;

/** Options of an RtcServer. */
export interface RtcServerOptions {
  logger: Logger;
  /** Without one, every connection is refused: the media server trusts nothing but the API's tokens. */
  authenticate?: RtcAuthenticator;
}

/** Largest protoo message a room member may send (an SDP-sized payload with room to spare). */
export const RTC_MAX_MESSAGE_BYTES = 64 * 1024;

/** protoo status codes of the /rtc endpoint. */
export const RTC_ERROR = {
  unauthorized: 401,
  notFound: 404,
} as const;

export class RtcServer {
  /** Where the upgrades of `/rtc` go (the process's UpgradeRouter hands them here). */
  readonly endpoint: UpgradeTarget;
  readonly #endpoint: ProtooEndpoint;
  #closed = false;

  constructor({ logger, authenticate }: RtcServerOptions) {
    this.endpoint = this.#endpoint = new ProtooEndpoint({
      maxMessageBytes: RTC_MAX_MESSAGE_BYTES,
      onProblem: (message, fields) => logger.warn(`rtc: ${message} ${JSON.stringify(fields)}`),
      onConnectionRequest: async ({ url }, accept, reject) => {
        if (url.pathname !== MEDIA_SOCKET_PATH) {
          reject(RTC_ERROR.notFound, 'Not found');
          return;
        }
        const identity = authenticate ? await authenticate(url) : null;
        if (!identity || this.#closed) {
          reject(RTC_ERROR.unauthorized, 'Room token required');
          return;
        }
        const transport = accept();
        if (!transport) return;
        // The same person connecting again replaces their older connection.
        this.#endpoint.peer(identity.peerId)?.close();
        const peer = this.#endpoint.createPeer(identity.peerId, transport);
        peer.on('request', (request, _accept, rejectRequest) => {
          rejectRequest(RTC_ERROR.notFound, `unknown method ${request.method}`);
        });
      },
    });
  }

  /** Connected room members. */
  get peerCount(): number {
    return this.#endpoint.peerCount;
  }

  /** Stops taking connections and closes the open ones. Safe to call more than once. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#endpoint.close();
  }
}
