/**
 * The web's one-to-one call state (spec section 4 "Call"): the call being placed, the call
 * ringing here, the active call, and the outcome to show. A pure reducer, so every server
 * event and every step of the person is a plain action that tests can replay; the timers
 * and the socket live in CallController.
 *
 * Every action that names a call is ignored unless it names the current one: late events
 * of a call that is already gone must not touch the next.
 */
import type { CallEndReason, UserSummary } from '@voice/protocol';

/** What the UI says when a call did not happen or ended badly (spec section 8 "Calls"). */
export type CallOutcome = 'busy' | 'declined' | 'unavailable' | 'timeout' | 'error' | 'microphone-required';

/** Where the active call is: `ended` while its cleanup delay runs. */
export type CallPhase = 'connecting' | 'connected' | 'ended';

/**
 * The peer connection's health, as the peer-connection layer reports it: `ok`, then on a
 * drop `disconnected`, `reconnecting` while an ICE restart runs, and `failed` (the call ends).
 */
export type CallConnection = 'ok' | 'disconnected' | 'reconnecting' | 'failed';

/**
 * How the last call of this tab ended, for the message that follows it ("Bob didn't answer",
 * "Call ended · 2:31", "Bob ended the call"): whom it was with, how long it was connected,
 * and who ended it when that is known.
 */
export interface CallEnding {
  /** Null for a call the server never created (initiate-call refused). */
  callId: string | null;
  peerUserId: string;
  /** The other party's profile when the state knows it (the caller's, for a call we answered). */
  peer: UserSummary | null;
  isInitiator: boolean;
  /** Whole seconds it was connected; null when it never connected. */
  connectedSeconds: number | null;
  /** `self`: we hung up; `peer`: the other party did; null: nobody did (refused, timed out, failed). */
  endedBy: 'self' | 'peer' | null;
  reason: CallEndReason;
}

/** A call this tab is part of, from `call-initiated` (caller) or accept (callee) on. */
export interface ActiveCall {
  callId: string;
  /** The other party's id. */
  peerUserId: string;
  /** The other party's profile when known (the caller's, for a call we answered). */
  peer: UserSummary | null;
  isInitiator: boolean;
  phase: CallPhase;
  connection: CallConnection;
  /** When the call connected (ms since epoch), for the duration timer. */
  connectedAt: number | null;
  /** Why it ended, once `phase` is `ended`. */
  endReason: CallEndReason | null;
}

/** An `initiate-call` in flight: the server has not confirmed the call yet. */
export interface PlacingCall {
  targetUserId: string;
  /** The id from the reply, if the reply came before `call-initiated`. */
  callId: string | null;
}

/** A call ringing in this tab, stored until accepted or rejected. */
export interface IncomingCall {
  callId: string;
  caller: UserSummary;
}

export interface CallState {
  placing: PlacingCall | null;
  incoming: IncomingCall | null;
  active: ActiveCall | null;
  /** The last outcome to show, until dismissed. */
  outcome: CallOutcome | null;
  /** How the last call ended, shown with the outcome (or alone), until dismissed. */
  ending: CallEnding | null;
}

export type CallAction =
  /** Logout or unload: nothing stays. */
  | { type: 'reset' }
  | { type: 'place/started'; targetUserId: string }
  /** The reply of `initiate-call`. */
  | { type: 'place/replied'; callId: string }
  /** `initiate-call` was refused (busy, unavailable, error) or the microphone was refused. */
  | { type: 'place/failed'; outcome: CallOutcome }
  /** The caller cancelled before the server confirmed the call. */
  | { type: 'place/cancelled' }
  | { type: 'server/call-initiated'; callId: string; targetUserId: string }
  | { type: 'server/call-accepted'; callId: string; at: number }
  | { type: 'server/call-rejected'; callId: string; at: number }
  | { type: 'server/incoming-call'; callId: string; caller: UserSummary }
  /**
   * `call-ended` from the server, or our own end after the peer connection failed, at `at` (ms
   * since epoch). A `hangup` here is always the other party's: our own is `call/hung-up`.
   */
  | { type: 'call/ended'; callId: string; reason: CallEndReason; at: number }
  /** We hung up the active call at `at`: it goes at once. */
  | { type: 'call/hung-up'; callId: string; at: number }
  /** The callee's accept went ahead (microphone held): the incoming call becomes the active one. */
  | { type: 'incoming/accepted'; callId: string }
  /** The incoming call is gone here: rejected, dismissed, or answered elsewhere. */
  | { type: 'incoming/cleared'; callId: string }
  /** The call (active, incoming or being placed) is over here; its cleanup has run. */
  | { type: 'call/cleared'; callId: string }
  /** The peer connection is up (the callee's only sign that the call connected). */
  | { type: 'peer/connected'; callId: string; at: number }
  | { type: 'connection/changed'; callId: string; connection: CallConnection }
  | { type: 'outcome/set'; outcome: CallOutcome }
  | { type: 'outcome/dismissed' };

export const initialCallState: CallState = {
  placing: null,
  incoming: null,
  active: null,
  outcome: null,
  ending: null,
};

/** The outcome a `call-ended` reason shows; null for an ending that needs no message. */
export function outcomeOfReason(reason: CallEndReason): CallOutcome | null {
  switch (reason) {
    case 'busy':
    case 'declined':
    case 'unavailable':
    case 'timeout':
      return reason;
    case 'error':
    case 'webrtc-failed':
    case 'peer-connection-failed':
      return 'error';
    case 'hangup':
    case 'answered-elsewhere':
      return null;
  }
}

/** How the active call `active` ends at `at` (ms since epoch) for `reason`, ended by `endedBy`. */
function endingOf(
  active: ActiveCall,
  reason: CallEndReason,
  at: number,
  endedBy: CallEnding['endedBy'],
): CallEnding {
  const connected = active.phase === 'connected' && active.connectedAt !== null;
  return {
    callId: active.callId,
    peerUserId: active.peerUserId,
    peer: active.peer,
    isInitiator: active.isInitiator,
    connectedSeconds: connected ? Math.max(0, Math.floor((at - (active.connectedAt ?? at)) / 1000)) : null,
    endedBy,
    reason,
  };
}

/** How a call we were placing ended before it became the active call (refused, or ended by the server). */
function placingEnding(placing: PlacingCall, reason: CallEndReason): CallEnding {
  return {
    callId: placing.callId,
    peerUserId: placing.targetUserId,
    peer: null,
    isInitiator: true,
    connectedSeconds: null,
    endedBy: null,
    reason,
  };
}

/** The id of the call this tab is dealing with, if any: events for any other id are stale. */
export function currentCallId(state: CallState): string | null {
  return state.active?.callId ?? state.incoming?.callId ?? state.placing?.callId ?? null;
}

/** Whether this tab is busy with a call (placing, ringing or active). */
export function hasCall(state: CallState): boolean {
  return state.placing !== null || state.incoming !== null || state.active !== null;
}

export function callReducer(state: CallState, action: CallAction): CallState {
  switch (action.type) {
    case 'reset':
      return initialCallState;
    case 'place/started':
      if (hasCall(state)) return state;
      return {
        ...state,
        placing: { targetUserId: action.targetUserId, callId: null },
        outcome: null,
        ending: null,
      };
    case 'place/replied':
      if (!state.placing || state.placing.callId !== null) return state;
      return { ...state, placing: { ...state.placing, callId: action.callId } };
    case 'place/failed':
      if (!state.placing) return state;
      return {
        ...state,
        placing: null,
        outcome: action.outcome,
        // A refused microphone has its own prompt; anything else names the person called.
        ending:
          action.outcome === 'microphone-required' ? null : placingEnding(state.placing, action.outcome),
      };
    case 'place/cancelled':
      return state.placing ? { ...state, placing: null } : state;
    case 'server/call-initiated': {
      // The caller's tab: confirmed by the server, the call is connecting.
      const placing = state.placing;
      if (!placing || placing.targetUserId !== action.targetUserId) return state;
      if (placing.callId !== null && placing.callId !== action.callId) return state;
      return {
        ...state,
        placing: null,
        active: {
          callId: action.callId,
          peerUserId: action.targetUserId,
          peer: null,
          isInitiator: true,
          phase: 'connecting',
          connection: 'ok',
          connectedAt: null,
          endReason: null,
        },
      };
    }
    case 'server/call-accepted': {
      const active = state.active;
      if (active?.callId !== action.callId || !active.isInitiator || active.phase !== 'connecting')
        return state;
      return { ...state, active: { ...active, phase: 'connected', connectedAt: action.at } };
    }
    case 'server/call-rejected':
      if (state.active?.callId !== action.callId || !state.active.isInitiator) return state;
      return {
        ...state,
        active: null,
        outcome: 'declined',
        ending: endingOf(state.active, 'declined', action.at, null),
      };
    case 'server/incoming-call':
      // One call at a time: the server answers `busy` to a second caller, so a second ring is stale.
      if (hasCall(state)) return state;
      return { ...state, incoming: { callId: action.callId, caller: action.caller } };
    case 'call/ended': {
      // A ringing call that ends (cancelled, timed out, answered elsewhere) goes silently.
      if (state.incoming?.callId === action.callId) return { ...state, incoming: null };
      if (state.placing?.callId === action.callId) {
        return {
          ...state,
          placing: null,
          outcome: outcomeOfReason(action.reason) ?? state.outcome,
          ending: placingEnding(state.placing, action.reason),
        };
      }
      const active = state.active;
      if (active?.callId !== action.callId || active.phase === 'ended') return state;
      return {
        ...state,
        active: { ...active, phase: 'ended', endReason: action.reason },
        outcome: outcomeOfReason(action.reason) ?? state.outcome,
        ending: endingOf(active, action.reason, action.at, action.reason === 'hangup' ? 'peer' : null),
      };
    }
    case 'call/hung-up': {
      const active = state.active;
      if (active?.callId !== action.callId) return state;
      // Already ended (by the other party, or failed): that ending stays the one to show.
      if (active.phase === 'ended') return { ...state, active: null };
      return { ...state, active: null, ending: endingOf(active, 'hangup', action.at, 'self') };
    }
    case 'incoming/accepted': {
      const incoming = state.incoming;
      if (incoming?.callId !== action.callId || state.active) return state;
      return {
        ...state,
        incoming: null,
        outcome: null,
        ending: null,
        active: {
          callId: incoming.callId,
          peerUserId: incoming.caller.id,
          peer: incoming.caller,
          isInitiator: false,
          phase: 'connecting',
          connection: 'ok',
          connectedAt: null,
          endReason: null,
        },
      };
    }
    case 'incoming/cleared':
      if (state.incoming?.callId !== action.callId) return state;
      return { ...state, incoming: null };
    case 'call/cleared':
      return {
        ...state,
        placing: state.placing?.callId === action.callId ? null : state.placing,
        incoming: state.incoming?.callId === action.callId ? null : state.incoming,
        active: state.active?.callId === action.callId ? null : state.active,
      };
    case 'peer/connected': {
      // The callee has no server event for this: its own peer connection says the call is up.
      const active = state.active;
      if (active?.callId !== action.callId || active.phase !== 'connecting') return state;
      return {
        ...state,
        active: { ...active, phase: 'connected', connection: 'ok', connectedAt: action.at },
      };
    }
    case 'connection/changed': {
      const active = state.active;
      if (active?.callId !== action.callId || active.phase === 'ended') return state;
      if (active.connection === action.connection) return state;
      return { ...state, active: { ...active, connection: action.connection } };
    }
    case 'outcome/set':
      return { ...state, outcome: action.outcome };
    case 'outcome/dismissed':
      return state.outcome === null && state.ending === null
        ? state
        : { ...state, outcome: null, ending: null };
  }
}
