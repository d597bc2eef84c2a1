import { CALL_END_REASONS, type UserSummary } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import {
  type CallAction,
  type CallState,
  callReducer,
  currentCallId,
  initialCallState,
  outcomeOfReason,
} from './callState.ts';

const alice: UserSummary = { id: 'alice', username: 'alice', display_name: null, avatar_url: null };

const run = (actions: CallAction[], from: CallState = initialCallState) => actions.reduce(callReducer, from);

const connecting = run([
  { type: 'place/started', targetUserId: 'bob' },
  { type: 'place/replied', callId: 'c1' },
  { type: 'server/call-initiated', callId: 'c1', targetUserId: 'bob' },
]);

const ringing = run([{ type: 'server/incoming-call', callId: 'c1', caller: alice }]);

describe('callReducer', () => {
  it('places, confirms and connects an outgoing call', () => {
    expect(connecting.active).toMatchObject({ callId: 'c1', isInitiator: true, phase: 'connecting' });
    expect(currentCallId(connecting)).toBe('c1');
    const connected = callReducer(connecting, { type: 'server/call-accepted', callId: 'c1', at: 5 });
    expect(connected.active).toMatchObject({ phase: 'connected', connectedAt: 5 });
  });

  it('ignores call-initiated for another person or with no call placed', () => {
    const placing = run([{ type: 'place/started', targetUserId: 'bob' }]);
    expect(callReducer(placing, { type: 'server/call-initiated', callId: 'c1', targetUserId: 'carol' })).toBe(
      placing,
    );
    expect(
      callReducer(initialCallState, { type: 'server/call-initiated', callId: 'c1', targetUserId: 'bob' }),
    ).toBe(initialCallState);
  });

  it('ignores call-accepted and call-rejected on the callee side', () => {
    const answered = callReducer(ringing, { type: 'incoming/accepted', callId: 'c1' });
    expect(answered.active).toMatchObject({ isInitiator: false, phase: 'connecting', peer: alice });
    expect(callReducer(answered, { type: 'server/call-accepted', callId: 'c1', at: 1 })).toBe(answered);
    expect(callReducer(answered, { type: 'server/call-rejected', callId: 'c1', at: 0 })).toBe(answered);
  });

  it('ignores every action naming another call', () => {
    const actions: CallAction[] = [
      { type: 'server/call-accepted', callId: 'x', at: 1 },
      { type: 'server/call-rejected', callId: 'x', at: 0 },
      { type: 'call/ended', callId: 'x', reason: 'hangup', at: 0 },
      { type: 'incoming/accepted', callId: 'x' },
      { type: 'incoming/cleared', callId: 'x' },
      { type: 'call/cleared', callId: 'x' },
      { type: 'peer/connected', callId: 'x', at: 1 },
      { type: 'connection/changed', callId: 'x', connection: 'failed' },
    ];
    for (const action of actions) {
      expect(callReducer(connecting, action)).toEqual(connecting);
      expect(callReducer(ringing, action)).toEqual(ringing);
    }
  });

  it('keeps one call at a time', () => {
    expect(callReducer(connecting, { type: 'server/incoming-call', callId: 'c2', caller: alice })).toBe(
      connecting,
    );
    expect(callReducer(ringing, { type: 'place/started', targetUserId: 'bob' })).toBe(ringing);
  });

  it('marks an ended call and keeps its outcome after clearing', () => {
    const ended = callReducer(connecting, { type: 'call/ended', callId: 'c1', reason: 'timeout', at: 0 });
    expect(ended.active).toMatchObject({ phase: 'ended', endReason: 'timeout' });
    expect(ended.outcome).toBe('timeout');
    const cleared = callReducer(ended, { type: 'call/cleared', callId: 'c1' });
    expect(cleared).toEqual({ ...initialCallState, outcome: 'timeout', ending: ended.ending });
  });

  it('a new call clears the last outcome', () => {
    const declined = callReducer(connecting, { type: 'server/call-rejected', callId: 'c1', at: 0 });
    expect(declined.outcome).toBe('declined');
    expect(callReducer(declined, { type: 'place/started', targetUserId: 'bob' }).outcome).toBeNull();
  });

  it('tracks connection drops and ignores them once ended', () => {
    const dropped = callReducer(connecting, {
      type: 'connection/changed',
      callId: 'c1',
      connection: 'disconnected',
    });
    expect(dropped.active?.connection).toBe('disconnected');
    const ended = callReducer(dropped, { type: 'call/ended', callId: 'c1', reason: 'hangup', at: 0 });
    expect(callReducer(ended, { type: 'connection/changed', callId: 'c1', connection: 'reconnecting' })).toBe(
      ended,
    );
  });
});

describe('callReducer: how the last call ended', () => {
  const connected = callReducer(connecting, { type: 'server/call-accepted', callId: 'c1', at: 10_000 });

  it('a connected call the other party hung up: its length and who ended it', () => {
    const ended = callReducer(connected, { type: 'call/ended', callId: 'c1', reason: 'hangup', at: 161_900 });
    expect(ended.ending).toEqual({
      callId: 'c1',
      peerUserId: 'bob',
      peer: null,
      isInitiator: true,
      connectedSeconds: 151,
      endedBy: 'peer',
      reason: 'hangup',
    });
    expect(ended.outcome).toBeNull();
  });

  it('our own hang-up clears the call at once and says we ended it', () => {
    const hungUp = callReducer(connected, { type: 'call/hung-up', callId: 'c1', at: 15_000 });
    expect(hungUp.active).toBeNull();
    expect(hungUp.ending).toMatchObject({ connectedSeconds: 5, endedBy: 'self', reason: 'hangup' });
  });

  it('leaving a call that already ended keeps the ending that was shown', () => {
    const failed = callReducer(connected, {
      type: 'call/ended',
      callId: 'c1',
      reason: 'peer-connection-failed',
      at: 20_000,
    });
    expect(failed.ending).toMatchObject({ connectedSeconds: 10, endedBy: null });
    const left = callReducer(failed, { type: 'call/hung-up', callId: 'c1', at: 21_000 });
    expect(left.active).toBeNull();
    expect(left.ending).toBe(failed.ending);
  });

  it('a call that never connected has no length', () => {
    const timedOut = callReducer(connecting, {
      type: 'call/ended',
      callId: 'c1',
      reason: 'timeout',
      at: 30_000,
    });
    expect(timedOut.ending).toMatchObject({ connectedSeconds: null, endedBy: null, reason: 'timeout' });
    const declined = callReducer(connecting, { type: 'server/call-rejected', callId: 'c1', at: 3000 });
    expect(declined.ending).toMatchObject({ peerUserId: 'bob', connectedSeconds: null, reason: 'declined' });
  });

  it('a refused initiate-call names the person called; a refused microphone does not', () => {
    const placing = run([{ type: 'place/started', targetUserId: 'bob' }]);
    expect(callReducer(placing, { type: 'place/failed', outcome: 'busy' }).ending).toEqual({
      callId: null,
      peerUserId: 'bob',
      peer: null,
      isInitiator: true,
      connectedSeconds: null,
      endedBy: null,
      reason: 'busy',
    });
    expect(callReducer(placing, { type: 'place/failed', outcome: 'microphone-required' }).ending).toBeNull();
  });

  it('the callee side keeps the caller it answered', () => {
    const answered = run(
      [
        { type: 'incoming/accepted', callId: 'c1' },
        { type: 'peer/connected', callId: 'c1', at: 1000 },
        { type: 'call/ended', callId: 'c1', reason: 'hangup', at: 8000 },
      ],
      ringing,
    );
    expect(answered.ending).toMatchObject({
      peer: alice,
      isInitiator: false,
      connectedSeconds: 7,
      endedBy: 'peer',
    });
  });

  it('dismissing, or a new call, forgets the ending', () => {
    const ended = callReducer(connected, { type: 'call/ended', callId: 'c1', reason: 'hangup', at: 12_000 });
    const cleared = callReducer(ended, { type: 'call/cleared', callId: 'c1' });
    expect(callReducer(cleared, { type: 'outcome/dismissed' })).toEqual(initialCallState);
    expect(callReducer(cleared, { type: 'place/started', targetUserId: 'bob' }).ending).toBeNull();
  });
});

describe('outcomeOfReason', () => {
  it('maps every end reason', () => {
    const outcomes = Object.fromEntries(CALL_END_REASONS.map((reason) => [reason, outcomeOfReason(reason)]));
    expect(outcomes).toEqual({
      busy: 'busy',
      declined: 'declined',
      unavailable: 'unavailable',
      timeout: 'timeout',
      error: 'error',
      'webrtc-failed': 'error',
      'peer-connection-failed': 'error',
      hangup: null,
      'answered-elsewhere': null,
    });
  });
});
