/**
 * The web's group-room state: where the room stands for this tab, who is in it, your mute,
 * deafen and place on a stage, and how it ended. A pure reducer, as calls have (callState.ts):
 * every server event and every step of the person is a plain action that a test replays without
 * a socket, a browser or a media server; the connection, the microphone and the rejoin timers
 * live in RoomSession, which reads the state an action left to decide what to do.
 */
import type { Room, RtcMutedBy, RtcStageRole } from '@voice/protocol';
import type { ErrorMessage } from '../../api/errorMessage.ts';
import type { MicrophoneWarning } from '../../media/MicrophoneManager.ts';
import type { RoomMember } from './RoomClient.ts';

/** Where the room stands for this tab. */
export type RoomStatus = 'idle' | 'joining' | 'connected' | 'reconnecting';

/** Why the room went away without you leaving. */
export type RoomEnd = 'kicked' | 'call' | 'closed' | 'failed';

export interface RoomState {
  status: RoomStatus;
  room: Room | null;
  members: readonly RoomMember[];
  activeSpeaker: string | null;
  muted: boolean;
  /** Set while an admin or moderator has you muted: you cannot unmute until they lift it. */
  mutedBy: RtcMutedBy | null;
  deafened: boolean;
  /** Whether you were muted when you deafened: undeafening gives it back. */
  mutedBeforeDeafen: boolean;
  /** You are one of the room's moderators (you may mute and remove members). */
  moderator: boolean;
  /** Who stands in for the absent admin, by member id (you, maybe); null while the admin is in. */
  actingAdmin: string | null;
  /** On a stage: whether you may talk, and your hand; outside one you are a speaker. */
  stageRole: RtcStageRole;
  volumes: Readonly<Record<string, number>>;
  /** The last failure to join or stay, for the person to read. */
  error: ErrorMessage | null;
  ended: RoomEnd | null;
  /** A microphone problem while in the room (lost, not recovered, permission withdrawn). */
  microphoneWarning: MicrophoneWarning | null;
}

export const idleRoomState: RoomState = {
  status: 'idle',
  room: null,
  members: [],
  activeSpeaker: null,
  muted: false,
  mutedBy: null,
  deafened: false,
  mutedBeforeDeafen: false,
  moderator: false,
  actingAdmin: null,
  stageRole: { speaker: true, handRaised: false },
  volumes: {},
  error: null,
  ended: null,
  microphoneWarning: null,
};

export type RoomAction =
  /** A join began (leaving whatever was before). */
  | { type: 'join/started' }
  /** The API let us in to `room`: the media server is being opened. */
  | { type: 'join/admitted'; room: Room; moderator: boolean }
  | { type: 'join/connected'; members: readonly RoomMember[] }
  /** The first join failed: nothing is kept but why. */
  | { type: 'join/failed'; error: ErrorMessage }
  /** You left. */
  | { type: 'left' }
  | { type: 'leave/failed' }
  /** The connection went (network, a media server's worker): rejoining by ourselves. */
  | { type: 'connection/lost' }
  /** The room went without you leaving (removed, a call taken, deleted, or rejoining gave up). */
  | { type: 'ended'; reason: RoomEnd; error?: ErrorMessage }
  | { type: 'you/muted'; muted: boolean }
  | { type: 'you/deafened'; deafened: boolean }
  | { type: 'volume/set'; peerId: string; volume: number }
  | { type: 'room/changed'; room: Room }
  | { type: 'message/dismissed' }
  | { type: 'microphone/warning'; warning: MicrophoneWarning | null }
  | { type: 'server/members'; members: readonly RoomMember[] }
  | { type: 'server/active-speaker'; peerId: string | null }
  | { type: 'server/muted-by'; mutedBy: RtcMutedBy | null }
  | { type: 'server/moderator'; moderator: boolean }
  | { type: 'server/acting-admin'; peerId: string | null }
  | { type: 'server/stage'; role: RtcStageRole };

export function roomReducer(state: RoomState, action: RoomAction): RoomState {
  switch (action.type) {
    case 'join/started':
      return { ...idleRoomState, status: 'joining' };
    case 'join/admitted':
      return { ...state, room: action.room, moderator: action.moderator };
    case 'join/connected':
      return { ...state, status: 'connected', error: null, members: action.members };
    case 'join/failed':
      return { ...idleRoomState, error: action.error };
    case 'left':
      return state.status === 'idle' ? state : { ...idleRoomState, ended: null };
    case 'leave/failed':
      return { ...state, error: { key: 'rooms.errors.leaveFailed' } };
    case 'connection/lost':
      return { ...state, status: 'reconnecting', members: [], activeSpeaker: null, actingAdmin: null };
    case 'ended':
      return { ...idleRoomState, ended: action.reason, error: action.error ?? null };
    case 'you/muted':
      return youMuted(state, action.muted);
    case 'you/deafened':
      return youDeafened(state, action.deafened);
    case 'volume/set':
      return { ...state, volumes: { ...state.volumes, [action.peerId]: action.volume } };
    case 'room/changed':
      return state.room?.id === action.room.id ? { ...state, room: action.room } : state;
    case 'message/dismissed':
      return { ...state, ended: null, error: null };
    case 'microphone/warning':
      return state.status === 'idle' ? state : { ...state, microphoneWarning: action.warning };
    case 'server/members':
      return { ...state, members: action.members };
    case 'server/active-speaker':
      return { ...state, activeSpeaker: action.peerId };
    case 'server/muted-by':
      // Muted by a moderator is muted; lifted, you stay muted until you unmute yourself.
      return action.mutedBy
        ? { ...state, mutedBy: action.mutedBy, muted: true }
        : { ...state, mutedBy: null };
    case 'server/moderator':
      return { ...state, moderator: action.moderator };
    case 'server/acting-admin':
      return { ...state, actingAdmin: action.peerId };
    case 'server/stage':
      return stageChanged(state, action.role);
    default:
      return state;
  }
}

/** Unmuting does nothing while a moderator has you muted; while deafened it undeafens too. */
function youMuted(state: RoomState, muted: boolean): RoomState {
  if (!muted && state.mutedBy) return state;
  // Speaking up while deafened means wanting to hear again too.
  if (!muted && state.deafened) return { ...state, deafened: false, muted: false, mutedBeforeDeafen: false };
  return { ...state, muted };
}

/**
 * Deafened, you hear nobody and nobody hears you (as in Discord): deafening mutes the
 * microphone too, and undeafening gives back the mute you had before.
 */
function youDeafened(state: RoomState, deafened: boolean): RoomState {
  if (deafened === state.deafened) return state;
  const mutedBeforeDeafen = deafened ? state.muted : state.mutedBeforeDeafen;
  const muted = deafened || state.mutedBy !== null ? true : mutedBeforeDeafen;
  return { ...state, deafened, muted, mutedBeforeDeafen };
}

/** Invited to speak after asking, you are heard at once (unless deafened or muted by a moderator). */
function stageChanged(state: RoomState, role: RtcStageRole): RoomState {
  const invited = role.speaker && !state.stageRole.speaker && state.status === 'connected';
  const unmute = invited && state.muted && !state.deafened && !state.mutedBy;
  return unmute ? { ...state, stageRole: role, muted: false } : { ...state, stageRole: role };
}
