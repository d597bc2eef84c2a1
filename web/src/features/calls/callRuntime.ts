/**
 * The call machinery of a signed-in tab, made in one place and loaded on demand: the sign-in
 * page, the first a visitor sees, does not carry it.
 */
import { callNotificationTag } from '@voice/protocol';
import { MicrophoneManager } from '../../media/MicrophoneManager.ts';
import { createRingtone } from '../../media/sounds.ts';
import { TurnCredentials } from '../../media/turnCredentials.ts';
import { closeNotifications } from '../../notifications/pageNotifications.ts';
import type { CallSocket } from './CallController.ts';
import { CallSession } from './CallSession.ts';

export interface CallRuntime {
  session: CallSession;
  microphone: MicrophoneManager;
  /** Logout: ends the call, stops the ringtone, forgets the TURN credentials. */
  dispose(): void;
}

export function createCallRuntime(socket: CallSocket): CallRuntime {
  const microphone = new MicrophoneManager();
  const ringtone = createRingtone();
  const turn = new TurnCredentials();
  // The call's notification (a push's or the page's) goes once the call stops ringing here.
  const notification = { close: (callId: string) => closeNotifications(callNotificationTag(callId)) };
  const session = new CallSession({ socket, microphone, turn, ringtone, notification });
  return {
    session,
    microphone,
    dispose() {
      session.dispose();
      ringtone.dispose();
      turn.clear();
    },
  };
}
