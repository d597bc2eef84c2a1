/**
 * Mints the peer-connection configuration a signed-in person's browser uses: STUN, and TURN
 * credentials in coturn's shared-secret scheme (`use-auth-secret`, the TURN REST API draft):
 * username `expiry:userId` with the expiry in Unix seconds, password the base64 HMAC-SHA1 of
 * the username keyed with the secret coturn also holds. coturn needs no user database and
 * refuses the credential once the expiry has passed.
 */
import { createHmac } from 'node:crypto';
import {
  FALLBACK_RTC_CONFIG,
  type IceServer,
  stunOnlyRtcConfiguration,
  TURN_ICE_CANDIDATE_POOL_SIZE,
  type TurnCredentialsResponse,
} from '@voice/protocol';
import { parseIceUrl } from './schema.ts';

export interface TurnCredentialsOptions {
  /**
   * The relay; null: STUN only, enough on one machine or one LAN. `forceRelay`: browsers use
   * relay candidates only, so the two sides of a call never see each other's addresses.
   */
  turn: { secret: string; urls: readonly string[]; forceRelay?: boolean } | null;
  /** How long a credential stays valid. */
  ttlSeconds: number;
  /** STUN servers; null: the TURN host itself, or the spec's fallback list without TURN. */
  stunUrls: readonly string[] | null;
  /** The clock, in ms (tests move it). */
  now?: () => number;
}

export class TurnCredentials {
  // Private: the secret must never end up in a log line or a serialized object.
  readonly #secret: string | null;
  readonly #turnUrls: readonly string[];
  readonly #forceRelay: boolean;
  readonly #stunUrls: readonly string[] | null;
  readonly #ttlSeconds: number;
  readonly #now: () => number;

  constructor(options: TurnCredentialsOptions) {
    this.#secret = options.turn?.secret ?? null;
    this.#turnUrls = options.turn?.urls ?? [];
    this.#forceRelay = options.turn?.forceRelay ?? false;
    this.#ttlSeconds = options.ttlSeconds;
    this.#now = options.now ?? Date.now;
    this.#stunUrls = options.turn
      ? unique([...stunUrlsOf(options.turn.urls), ...(options.stunUrls ?? [])])
      : options.stunUrls;
  }

  /** True when a relay is configured (TURN_SECRET and TURN_URLS). */
  get relayed(): boolean {
    return this.#secret !== null;
  }

  /** The configuration for `userId`'s peer connections, valid for the configured TTL. */
  issue(userId: string): TurnCredentialsResponse {
    const expiry = Math.floor(this.#now() / 1000) + this.#ttlSeconds;
    const expiresAt = expiry * 1000;
    if (this.#secret === null) {
      return {
        success: true,
        expiresAt,
        rtcConfiguration: stunOnlyRtcConfiguration(this.#stunUrls ?? undefined),
      };
    }
    const username = `${expiry}:${userId}`;
    const credential = createHmac('sha1', this.#secret).update(username).digest('base64');
    const iceServers: IceServer[] = [];
    if (this.#stunUrls && this.#stunUrls.length > 0) iceServers.push({ urls: [...this.#stunUrls] });
    iceServers.push({ urls: [...this.#turnUrls], username, credential });
    const iceTransportPolicy = this.#forceRelay ? 'relay' : FALLBACK_RTC_CONFIG.iceTransportPolicy;
    return {
      success: true,
      expiresAt,
      rtcConfiguration: {
        ...FALLBACK_RTC_CONFIG,
        iceCandidatePoolSize: TURN_ICE_CANDIDATE_POOL_SIZE,
        iceTransportPolicy,
        iceServers,
      },
    };
  }
}

/**
 * coturn answers STUN binding requests on its TURN port without credentials, so every plain
 * turn: host doubles as a STUN server. turns: is left out: browsers have no STUN over TLS.
 */
function stunUrlsOf(turnUrls: readonly string[]): string[] {
  const out: string[] = [];
  for (const href of turnUrls) {
    const url = parseIceUrl(href, ['turn']);
    if (url) out.push(`stun:${url.host}:${url.port ?? 3478}`);
  }
  return out;
}

function unique(urls: string[]): string[] {
  return [...new Set(urls)];
}
