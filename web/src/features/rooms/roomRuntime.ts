/** The room machinery (mediasoup-client and all), loaded the first time someone joins a room. */
import { ApiError } from '../../api/client.ts';
import { errorMessage } from '../../api/errorMessage.ts';
import { currentLanguage } from '../../i18n/i18n.ts';
import { MicrophoneManager } from '../../media/MicrophoneManager.ts';
import { MicrophoneError } from '../../media/microphoneErrors.ts';
import { TurnCredentials } from '../../media/turnCredentials.ts';
import { RoomSession } from './RoomSession.ts';

export function createRoomSession(me: { id: string; displayName: string }): RoomSession {
  return new RoomSession({
    me,
    microphone: new MicrophoneManager(),
    turn: new TurnCredentials(),
    describeError: (error) => {
      if (error instanceof MicrophoneError) return error.display;
      if (error instanceof ApiError) return errorMessage(error, currentLanguage());
      // The API let us in, the media server did not answer (or hung up).
      return { key: 'rooms.errors.connectFailed' };
    },
  });
}
