/**
 * React access to the one-to-one call of this tab (CallProvider): its state, the person's
 * actions, and the in-call controls.
 */
import type { UserSummary } from '@voice/protocol';
import { createContext, useContext } from 'react';
import type { MicrophoneWarning } from '../../media/MicrophoneManager.ts';
import type { MicrophoneError } from '../../media/microphoneErrors.ts';
import type { MissedCall } from './CallController.ts';
import type { CallState } from './callState.ts';

export interface CallViewModel {
  state: CallState;
  /** The other party of the call being placed, the active call, or the call that just ended, when known. */
  peer: UserSummary | null;
  /** Calls a friend; does nothing while this tab has a call. */
  startCall(user: UserSummary): void;
  accept(): void;
  reject(): void;
  /** The person dismissed the call's notification: rejects it if it still rings. */
  notificationDismissed(callId: string): void;
  /** Hangs up, cancels a call being placed, or rejects a ringing one. */
  end(): void;
  dismissOutcome(): void;
  /** The microphone's last capture error, for the permission prompt. */
  microphoneError: MicrophoneError | null;
  /** A microphone problem during the call. */
  microphoneWarning: MicrophoneWarning | null;
  muted: boolean;
  setMuted(muted: boolean): void;
  /** The other party muted their microphone. */
  peerMuted: boolean;
  /** Push-to-talk or voice activity: whether your microphone is sent now. */
  setTransmitting(open: boolean): void;
  /** The active call's WebRTC statistics (for the voice panel's quality); none without a call. */
  connectionStats(): Promise<RTCStatsReport[]>;
  minimized: boolean;
  setMinimized(minimized: boolean): void;
  /** Calls that rang here unanswered since the person last looked at the call history. */
  missed: readonly MissedCall[];
  /** The person saw them (the Calls tab opened, or the toast dismissed). */
  seeMissed(): void;
  /** Calls `listener` with the level of your own voice (0..1), a few times a second. */
  onLocalLevel(listener: (level: number) => void): () => void;
}

export const CallContext = createContext<CallViewModel | null>(null);

/**
 * The call view-model; throws outside CallProvider. While the call machinery loads (or
 * while signed out) its state is idle and its actions do nothing.
 */
export function useCall(): CallViewModel {
  const call = useContext(CallContext);
  if (!call) throw new Error('useCall must be used within a CallProvider');
  return call;
}
