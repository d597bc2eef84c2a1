import type { Room } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import type { RoomMember } from './RoomClient.ts';
import { idleRoomState, type RoomAction, type RoomState, roomReducer } from './roomState.ts';

const room = (id: string, name = `Room ${id}`): Room => ({
  id,
  name,
  description: null,
  type: 'public',
  hasPassword: false,
  locked: false,
  admin: { id: 'admin', username: 'admin', display_name: null, avatar_url: null },
  memberCount: 1,
  maxParticipants: 25,
  loudest: 3,
  stage: false,
  participants: [],
  moderators: [],
  created_at: '2026-11-26T10:00:00.000Z',
});

const bob: RoomMember = {
  id: 'bob',
  displayName: 'Bob',
  avatarUrl: null,
  admin: false,
  moderator: false,
  muted: false,
  deafened: false,
  mutedBy: null,
  speaker: true,
  handRaised: false,
  volume: null,
};

const moderator = { id: 'mod', displayName: 'Mo' };

/** The state after `actions`, from idle. */
function replay(...actions: RoomAction[]): RoomState {
  return actions.reduce(roomReducer, idleRoomState);
}

const inRoom: RoomAction[] = [
  { type: 'join/started' },
  { type: 'join/admitted', room: room('r1'), moderator: false },
  { type: 'join/connected', members: [bob] },
];

describe('roomReducer', () => {
  it('joins: joining, admitted to the room, connected with its members', () => {
    expect(replay({ type: 'join/started' })).toMatchObject({ status: 'joining', room: null });
    expect(replay(...inRoom)).toMatchObject({
      status: 'connected',
      room: { id: 'r1' },
      members: [bob],
      error: null,
    });
  });

  it('a first join that fails keeps only why; leaving goes back to idle with nothing to say', () => {
    const error = { key: 'rooms.errors.full' };
    expect(replay({ type: 'join/started' }, { type: 'join/failed', error })).toEqual({
      ...idleRoomState,
      error,
    });
    expect(replay(...inRoom, { type: 'left' })).toEqual(idleRoomState);
    expect(roomReducer(idleRoomState, { type: 'left' })).toBe(idleRoomState);
  });

  it('a lost connection keeps the room, mute and volumes while rejoining, and forgets who was there', () => {
    const state = replay(
      ...inRoom,
      { type: 'you/muted', muted: true },
      { type: 'volume/set', peerId: 'bob', volume: 1.5 },
      { type: 'server/active-speaker', peerId: 'bob' },
      { type: 'connection/lost' },
    );
    expect(state).toMatchObject({
      status: 'reconnecting',
      room: { id: 'r1' },
      members: [],
      activeSpeaker: null,
      muted: true,
      volumes: { bob: 1.5 },
    });
  });

  it('ends with the reason (and why, when rejoining gave up), and a dismissal forgets it', () => {
    expect(replay(...inRoom, { type: 'ended', reason: 'kicked' })).toEqual({
      ...idleRoomState,
      ended: 'kicked',
    });
    const error = { key: 'rooms.errors.connectFailed' };
    const failed = replay(...inRoom, { type: 'ended', reason: 'failed', error });
    expect(failed).toMatchObject({ status: 'idle', ended: 'failed', error });
    expect(roomReducer(failed, { type: 'message/dismissed' })).toEqual(idleRoomState);
  });

  it('deafening mutes you, and undeafening gives back the mute you had', () => {
    const deafened = replay(...inRoom, { type: 'you/deafened', deafened: true });
    expect(deafened).toMatchObject({ deafened: true, muted: true, mutedBeforeDeafen: false });
    expect(roomReducer(deafened, { type: 'you/deafened', deafened: false })).toMatchObject({
      deafened: false,
      muted: false,
    });
    const mutedFirst = replay(
      ...inRoom,
      { type: 'you/muted', muted: true },
      { type: 'you/deafened', deafened: true },
    );
    expect(roomReducer(mutedFirst, { type: 'you/deafened', deafened: false })).toMatchObject({
      deafened: false,
      muted: true,
    });
    // Unmuting while deafened means wanting to hear again too.
    expect(roomReducer(mutedFirst, { type: 'you/muted', muted: false })).toMatchObject({
      deafened: false,
      muted: false,
    });
  });

  it("a moderator's mute holds: you cannot unmute, undeafening leaves you muted, and lifting it leaves you muted", () => {
    const muted = replay(...inRoom, { type: 'server/muted-by', mutedBy: moderator });
    expect(muted).toMatchObject({ muted: true, mutedBy: moderator });
    expect(roomReducer(muted, { type: 'you/muted', muted: false })).toBe(muted);
    const deafened = roomReducer(muted, { type: 'you/deafened', deafened: true });
    expect(roomReducer(deafened, { type: 'you/deafened', deafened: false })).toMatchObject({ muted: true });
    expect(roomReducer(muted, { type: 'server/muted-by', mutedBy: null })).toMatchObject({
      muted: true,
      mutedBy: null,
    });
  });

  it('on a stage, invited to speak unmutes you unless you are deafened or muted by a moderator', () => {
    const audience = replay(
      ...inRoom,
      { type: 'server/stage', role: { speaker: false, handRaised: false } },
      { type: 'you/muted', muted: true },
      { type: 'server/stage', role: { speaker: false, handRaised: true } },
    );
    const invited = { type: 'server/stage', role: { speaker: true, handRaised: false } } as const;
    expect(roomReducer(audience, invited)).toMatchObject({ stageRole: invited.role, muted: false });
    const deafened = roomReducer(audience, { type: 'you/deafened', deafened: true });
    expect(roomReducer(deafened, invited)).toMatchObject({ stageRole: invited.role, muted: true });
    const modMuted = roomReducer(audience, { type: 'server/muted-by', mutedBy: moderator });
    expect(roomReducer(modMuted, invited)).toMatchObject({ muted: true });
    // Being a speaker from the join is no invitation: your mute stays as it was.
    const joining = replay({ type: 'join/started' }, { type: 'you/muted', muted: true }, invited);
    expect(joining.muted).toBe(true);
  });

  it('shows the room as changed only when it is the room you are in; a microphone warning only while in one', () => {
    const state = replay(...inRoom);
    expect(roomReducer(state, { type: 'room/changed', room: room('r1', 'Renamed') }).room?.name).toBe(
      'Renamed',
    );
    expect(roomReducer(state, { type: 'room/changed', room: room('r2') })).toBe(state);
    expect(roomReducer(state, { type: 'microphone/warning', warning: 'device-lost' }).microphoneWarning).toBe(
      'device-lost',
    );
    expect(roomReducer(idleRoomState, { type: 'microphone/warning', warning: 'device-lost' })).toBe(
      idleRoomState,
    );
  });

  it('follows what the server says: members, moderator, acting admin', () => {
    const state = replay(
      ...inRoom,
      { type: 'server/members', members: [] },
      { type: 'server/moderator', moderator: true },
      { type: 'server/acting-admin', peerId: 'me' },
    );
    expect(state).toMatchObject({ members: [], moderator: true, actingAdmin: 'me' });
  });
});
