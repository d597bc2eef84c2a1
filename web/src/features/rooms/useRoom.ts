/** React access to the group room this tab is in (RoomProvider). */

import type { Room } from '@voice/protocol';
import { createContext, useContext } from 'react';
import type { RoomState } from './roomState.ts';

export interface RoomViewModel {
  state: RoomState;
  /**
   * Joins a room (leaving the current one; from a call, after asking to end it, naming the room
   * when `name` is given); resolves false when refused (see state.error) or not confirmed.
   */
  join(roomId: string, options?: { password?: string | undefined; name?: string | null }): Promise<boolean>;
  /** Accepts a room invitation and joins its room (`name`: the room's, for the question from a call). */
  acceptInvitation(invitationId: string, roomId: string, name?: string | null): Promise<boolean>;
  leave(): Promise<void>;
  /** Push-to-talk or voice activity: whether your microphone is sent now. */
  setTransmitting(open: boolean): void;
  /** Calls `listener` with the level of your own voice (0..1), muted or not, while in a room. */
  onLocalLevel(listener: (level: number) => void): () => void;
  /** The room connection's WebRTC statistics (for the voice panel's quality); none when not in a room. */
  connectionStats(): Promise<RTCStatsReport[]>;
  setMuted(muted: boolean): void;
  setDeafened(deafened: boolean): void;
  /** One member's volume, 0..2 (0–200%). */
  setVolume(peerId: string, volume: number): void;
  /** Admin or moderator: mute a member (they cannot unmute until `unmutePeer`), or remove them. */
  mutePeer(peerId: string): void;
  unmutePeer(peerId: string): void;
  kick(peerId: string): void;
  /** On a stage: raise or lower your hand; a failure rejects (shown to the person). */
  raiseHand(raised: boolean): Promise<unknown>;
  /** On a stage, admin or moderator: let a raised hand (or yourself) speak. */
  inviteToSpeak(peerId: string): Promise<unknown>;
  /** On a stage: move a speaker (an admin's or moderator's) or yourself to the audience. */
  moveToAudience(peerId: string): Promise<unknown>;
  /** The admin changed the room: show it as it is now. */
  roomChanged(room: Room): void;
  dismiss(): void;
}

export const RoomContext = createContext<RoomViewModel | null>(null);

export function useRoom(): RoomViewModel {
  const room = useContext(RoomContext);
  if (!room) throw new Error('useRoom must be used within a RoomProvider');
  return room;
}
