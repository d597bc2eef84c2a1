/** Whether a member's audio level shows them speaking: shared by the room's client and its view. */
import { SPEAKING_DBOV } from '@voice/protocol';

/** Above SPEAKING_DBOV a member speaks: their ring lights (the media server tells of it then). */
export function speaks(volume: number | null): boolean {
  return volume !== null && volume > SPEAKING_DBOV;
}
