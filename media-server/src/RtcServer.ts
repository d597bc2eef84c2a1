/**
 * The media server's signalling endpoint (`/rtc`): protoo over WebSocket, one connection
 * per room member. A connection must carry a room token from the API; what the member may
 * then ask is the rooms' business (RoomRegistry.ts), which this endpoint hands each connection to.
 */
import { FORWARDING, MEDIA_SOCKET_PATH } from '@voice/protocol';
import { ProtooEndpoint, type UpgradeTarget } from '@voice/signalling';
import type protoo from 'protoo-server';
import { RTC_ERROR, RtcRequestError } from './errors.ts';
import type { RtcMember } from './Peer.ts';
import type { Logger } from './types.ts';

/**
 * Checks the connection URL's room token and says whose it is; null refuses the connection. It
 * may leave the profile out (tests do): the member then shows as their id and is neither admin nor moderator.
 */
export type RtcAuthenticator = (
  url: URL,
) => Promise<(Pick<RtcMember, 'peerId' | 'roomId'> & Partial<RtcMember>) | null>;

/**
 * Takes an authenticated member: prepares their room, then calls `accept` for the protoo peer
 * (null when the socket went meanwhile). Any older connection of the same person is closed by then.
 */
export type RtcAdmission = (member: RtcMember, accept: () => protoo.Peer | null) => Promise<void>;

/** Options of an RtcServer. */
export interface RtcServerOptions {
  logger: Logger;
  /** Without one, every connection is refused: the media server trusts nothing but the API's tokens. */
  authenticate?: RtcAuthenticator;
  admit: RtcAdmission;
}

/** Largest protoo message a room member may send (an SDP-sized payload with room to spare). */
export const RTC_MAX_MESSAGE_BYTES = 64 * 1024;

export class RtcServer {
  /** Where the upgrades of `/rtc` go (the process's UpgradeRouter hands them here). */
  readonly endpoint: UpgradeTarget;
  readonly #endpoint: ProtooEndpoint;
  #closed = false;

  constructor({ logger, authenticate, admit }: RtcServerOptions) {
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
        const member: RtcMember = {
          peerId: identity.peerId,
          roomId: identity.roomId,
          displayName: identity.displayName ?? identity.peerId,
          avatarUrl: identity.avatarUrl ?? null,
          admin: identity.admin ?? false,
          moderator: identity.moderator ?? false,
          loudest: identity.loudest ?? FORWARDING.loudestDefault,
          stage: identity.stage ?? false,
        };
        try {
          await admit(member, () => {
            const transport = this.#closed ? null : accept();
            if (!transport) return null;
            // The same person connecting again replaces their older connection (in any room).
            this.#endpoint.peer(member.peerId)?.close();
            return this.#endpoint.createPeer(member.peerId, transport);
          });
        } catch (error) {
          // A refusal with a reason (a full room) is the client's to hear; anything else is ours.
          if (!(error instanceof RtcRequestError)) throw error;
          reject(error.status, error.message);
        }
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
