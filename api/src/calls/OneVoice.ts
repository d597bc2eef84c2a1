/**
 * One voice at a time (issue 19): a person's microphone goes into a group room or a 1:1 call,
 * never both, whatever their browser does. The browser asks first and leaves the other; this
 * is the rule the API holds to on its own:
 * - a call answered takes both parties out of any room they are in (the `inCall` command:
 *   each media server removes them, the room's members see them leave);
 * - a room token given out ends the person's answered call, or the call they are placing, as
 *   their hangup (a call ringing for them keeps ringing: the caller of someone in a room still
 *   rings them; answering it takes them out of the room);
 * - someone seen entering a room while in an answered call is taken out of the room again: their
 *   token was given before the call was answered (a race), so the call is the newer choice.
 */
import { type Bus, roomCommandsChannel } from '@voice/bus';
import type { Logger } from '../logger.ts';
import type { RoomMembership } from '../rooms/RoomMembership.ts';
import type { RoomService } from '../rooms/RoomService.ts';
import type { CallService } from './CallService.ts';

export interface OneVoiceDeps {
  calls: CallService;
  rooms: RoomService;
  membership: RoomMembership;
  bus: Bus;
  logger: Logger;
}

/** Wires the rule into the calls and rooms of this process; they hold no state of their own for it. */
export function keepOneVoice({ calls, rooms, membership, bus, logger }: OneVoiceDeps): void {
  const leaveRooms = (userId: string) => bus.publish(roomCommandsChannel, { type: 'inCall', peerId: userId });

  calls.onAnswered(async (call) => {
    await Promise.all([leaveRooms(call.calleeId), leaveRooms(call.callerId)]);
  });

  rooms.onEntering(async (userId) => {
    if (await calls.endFor(userId)) logger.info('call ended: its party went into a room', { userId });
  });

  membership.onChange(async (roomId, { entered }) => {
    for (const userId of entered) {
      if (!(await calls.inCall(userId))) continue;
      logger.warn('in a room and a call at once; taking them out of the room', { userId, roomId });
      await leaveRooms(userId);
    }
  });
}
