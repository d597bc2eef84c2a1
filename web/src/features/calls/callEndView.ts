/**
 * What the message after a call says, as pure data for CallEndNotice: the spec's outcome
 * message ("Call was declined") or "Call ended" for a call that connected, its length, and
 * a line naming the other person the way people say it ("Bob declined the call", "Bob ended
 * the call"). Kept apart from the component so the wording choice is tested without React.
 */
import type { CallEnding, CallOutcome } from './callState.ts';

/** The spec's messages (section 8 "Calls"), one per outcome. */
export const OUTCOME_KEYS: Record<CallOutcome, string> = {
  busy: 'call.outcome.busy',
  declined: 'call.outcome.declined',
  unavailable: 'call.outcome.unavailable',
  timeout: 'call.outcome.timeout',
  error: 'call.outcome.error',
  'microphone-required': 'call.outcome.microphoneRequired',
};

/** The line under the spec's message for a call that did not happen, naming the person called. */
const CALLER_DETAIL_KEYS: Record<Exclude<CallOutcome, 'microphone-required'>, string> = {
  busy: 'call.ended.busy',
  declined: 'call.ended.declined',
  unavailable: 'call.ended.unavailable',
  timeout: 'call.ended.timeout',
  error: 'call.ended.failedTo',
};

/** What to show once a call is over. */
export interface CallEndMessage {
  /** Translation key of the first line: the spec's outcome message, or "Call ended". */
  titleKey: string;
  /** How long the call was connected, in seconds; null when it never connected. */
  connectedSeconds: number | null;
  /** Translation key of the line naming the other person ({{name}}); null when there is none. */
  detailKey: string | null;
  /** Whether something went wrong (shown in the danger colour), rather than an ordinary end. */
  problem: boolean;
}

/**
 * The message for the last outcome and ending of the call state; null when there is nothing
 * to show here (no call ended, our own cancel, or the microphone prompt, which has its dialog).
 */
export function callEndMessage(
  outcome: CallOutcome | null,
  ending: CallEnding | null,
): CallEndMessage | null {
  if (outcome === 'microphone-required') return null;
  if (ending && ending.connectedSeconds !== null) {
    // A call that was under way: how long it lasted, and who ended it, or that the line broke.
    return {
      titleKey: 'call.status.ended',
      connectedSeconds: ending.connectedSeconds,
      detailKey: endedByKey(ending) ?? 'call.ended.connectionLost',
      problem: false,
    };
  }
  if (outcome) {
    let detailKey: string | null = null;
    if (ending) {
      // Only a call we placed can be busy, declined, unavailable or unanswered; the callee's
      // side of a failed call is worded for them.
      detailKey = ending.isInitiator ? CALLER_DETAIL_KEYS[outcome] : 'call.ended.failedFrom';
    }
    return { titleKey: OUTCOME_KEYS[outcome], connectedSeconds: null, detailKey, problem: true };
  }
  // The other party hung up before the call connected (after we answered, or while it set up).
  if (ending?.endedBy === 'peer') {
    return {
      titleKey: 'call.status.ended',
      connectedSeconds: null,
      detailKey: 'call.ended.byPeer',
      problem: false,
    };
  }
  return null;
}

function endedByKey(ending: CallEnding): string | null {
  if (ending.endedBy === 'peer') return 'call.ended.byPeer';
  if (ending.endedBy === 'self') return 'call.ended.byYou';
  return null;
}
