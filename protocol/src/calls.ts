/**
 * One-to-one calls over the app socket (spec section 4 "Call", section 7): the limits and
 * the reasons a call ends. The socket requests and notifications are declared in events.ts.
 */

/** A call nobody answers ends with `timeout` after this long (spec: 30 s). */
export const CALL_RING_TIMEOUT_MS = 30_000;

/** Largest SDP (offer or answer) a tab may relay; an audio-only SDP is a few KB. */
export const CALL_SDP_MAX_CHARS = 32 * 1024;

/** Largest ICE candidate line (and its mid / ufrag) a tab may relay. */
export const CALL_ICE_CANDIDATE_MAX_CHARS = 1024;

/**
 * Why a call ended, in `call-ended`:
 * - busy: the callee (or the caller) is already in a call or ringing;
 * - declined: the callee rejected;
 * - unavailable: the callee has no connected tab;
 * - timeout: nobody answered within CALL_RING_TIMEOUT_MS;
 * - error, webrtc-failed, peer-connection-failed: a party's browser gave up;
 * - hangup: a party ended the call (or closed its tab);
 * - answered-elsewhere: to the callee's other tabs, which stop ringing.
 */
export const CALL_END_REASONS = [
  'busy',
  'declined',
  'unavailable',
  'timeout',
  'error',
  'webrtc-failed',
  'peer-connection-failed',
  'hangup',
  'answered-elsewhere',
] as const;
export type CallEndReason = (typeof CALL_END_REASONS)[number];

/** Reasons a party may give with `end-call` (hangup when none). */
export const CALL_HANGUP_REASONS = ['hangup', 'webrtc-failed', 'peer-connection-failed', 'error'] as const;
export type CallHangupReason = (typeof CALL_HANGUP_REASONS)[number];

/** An ICE candidate as RTCIceCandidateInit carries it, nothing else. */
export interface CallIceCandidate {
  candidate: string;
  sdpMid?: string | null;
  sdpMLineIndex?: number | null;
  usernameFragment?: string | null;
}

/** REST paths of the call history (under /api). */
export const CALL_ROUTES = {
  /** GET ?limit=&before= → CallHistoryResponse, newest first. */
  history: '/calls',
} as const;

/** Page size of GET CALL_ROUTES.history: `limit` defaults to `defaultLimit`, at most `maxLimit`. */
export const CALL_HISTORY = { defaultLimit: 20, maxLimit: 100 } as const;

/** Whether the person asking made the call or received it. */
export type CallDirection = 'outgoing' | 'incoming';

/**
 * How a call went, as the person asking sees it:
 * - answered: it connected (then `duration` counts);
 * - declined: the callee rejected it;
 * - missed: nobody answered (to the callee: any call they did not answer or decline);
 * - cancelled: the caller hung up (or their tab closed) before an answer.
 */
export type CallHistoryStatus = 'answered' | 'declined' | 'missed' | 'cancelled';

/** One call of GET CALL_ROUTES.history. */
export interface CallHistoryEntry {
  id: string;
  direction: CallDirection;
  status: CallHistoryStatus;
  /** The other person's public profile (a removed account takes its calls with it). */
  user: { id: string; username: string; display_name: string | null; avatar_url: string | null };
  created_at: string;
  answered_at: string | null;
  ended_at: string;
  end_reason: CallEndReason;
  /** Seconds from answer to end; 0 for a call that never connected. */
  duration: number;
}

/** The answer of GET CALL_ROUTES.history. `before` (an ISO time) pages on: calls created earlier. */
export interface CallHistoryResponse {
  calls: CallHistoryEntry[];
}
