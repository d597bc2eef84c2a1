/**
 * TURN credentials and the peer-connection configuration (SPEC.md sections 3, 4 and 9):
 * GET /api/webrtc/turn-credentials, with a bearer token and no parameters.
 * A failure answers with the usual ErrorBody (`{error: {code, message}}`).
 */
import { FALLBACK_RTC_CONFIG, FALLBACK_STUN_SERVERS } from './constants.ts';

/** Route paths (relative to API_BASE). */
export const WEBRTC_ROUTES = {
  turnCredentials: '/webrtc/turn-credentials',
} as const;

/**
 * Candidates a peer connection gathers ahead with TURN servers configured. The STUN-only
 * fallback keeps the spec's pool of 10; with TURN each pooled candidate is a relay allocation
 * per TURN URL, and a call uses one bundled transport, so a pool of 10 would ask coturn for
 * ~20 allocations per call and run into its per-user quota. One is gathered ahead: the
 * caller's is ready before the callee answers.
 */
export const TURN_ICE_CANDIDATE_POOL_SIZE = 1;

/** One ICE server as RTCPeerConnection takes it (RTCIceServer, without the DOM types). */
export interface IceServer {
  /** stun:, turn: or turns: URLs (RFC 7064, RFC 7065). */
  urls: string[];
  /** TURN only: `expiry:userId`, the expiry in Unix seconds (coturn's `use-auth-secret`). */
  username?: string;
  /** TURN only: base64 HMAC-SHA1 of the username with the server's TURN secret. */
  credential?: string;
}

/** The RTCConfiguration a peer connection is created with. */
export interface RtcConfiguration {
  iceServers: IceServer[];
  iceCandidatePoolSize: number;
  iceTransportPolicy: 'all' | 'relay';
  bundlePolicy: typeof FALLBACK_RTC_CONFIG.bundlePolicy;
  rtcpMuxPolicy: typeof FALLBACK_RTC_CONFIG.rtcpMuxPolicy;
}

/**
 * The answer of WEBRTC_ROUTES.turnCredentials. Without a TURN relay configured on the
 * server, `iceServers` holds STUN servers only (calls still work on one machine or LAN).
 */
export interface TurnCredentialsResponse {
  success: true;
  /** When the TURN credentials stop working, in ms since the epoch; refresh before then. */
  expiresAt: number;
  rtcConfiguration: RtcConfiguration;
}

/** A STUN-only configuration: the spec's fallback list unless other STUN URLs are given. */
export function stunOnlyRtcConfiguration(
  stunUrls: readonly string[] = FALLBACK_STUN_SERVERS,
): RtcConfiguration {
  return { ...FALLBACK_RTC_CONFIG, iceServers: [{ urls: [...stunUrls] }] };
}
