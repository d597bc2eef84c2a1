import { CALL_TIMERS, type UserSummary } from '@voice/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api/client.ts';
import type { AppSocket } from '../../socket/AppSocket.ts';
import { CallController, type CallSocket } from './CallController.ts';
import { FakeCallSocket } from './testing/FakeCallSocket.ts';

// The real socket must fit the interface the controller asks for.
const appSocketFits = (socket: AppSocket): CallSocket => socket;
void appSocketFits;

const alice: UserSummary = { id: 'alice', username: 'alice', display_name: 'Alice', avatar_url: null };

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function setup(
  microphone: () => Promise<boolean> = async () => true,
  acceptance?: ConstructorParameters<typeof CallController>[0]['acceptance'],
) {
  const socket = new FakeCallSocket();
  socket.answer('initiate-call', async () => ({ callId: 'c1' }));
  const ringtone = { play: vi.fn(), stop: vi.fn() };
  const notification = { close: vi.fn() };
  const ensureMicrophone = vi.fn(microphone);
  const log = vi.fn();
  const controller = new CallController({
    socket,
    ensureMicrophone,
    ringtone,
    notification,
    acceptance,
    now: () => 1_000,
    log,
  });
  return { socket, ringtone, notification, ensureMicrophone, controller, log };
}

/** A caller's call to bob, confirmed by the server: connecting. */
async function outgoing(t = setup()) {
  await t.controller.startCall('bob');
  t.socket.emit('call-initiated', { callId: 'c1', targetUserId: 'bob' });
  return t;
}

/** Alice's call ringing here, accepted: connecting, not the initiator. */
async function answered(t = setup()) {
  t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
  await t.controller.accept();
  return t;
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('outgoing call', () => {
  it('asks for the microphone, sends initiate-call, is connecting after call-initiated and connected on call-accepted', async () => {
    const t = setup();
    const starting = t.controller.startCall('bob');
    expect(t.controller.state.placing).toEqual({ targetUserId: 'bob', callId: null });
    await starting;
    expect(t.ensureMicrophone).toHaveBeenCalledExactlyOnceWith('place');
    expect(t.socket.sent('initiate-call')).toEqual([{ targetUserId: 'bob' }]);
    expect(t.controller.state.placing).toEqual({ targetUserId: 'bob', callId: 'c1' });
    expect(t.controller.state.active).toBeNull();

    t.socket.emit('call-initiated', { callId: 'c1', targetUserId: 'bob' });
    expect(t.controller.state.placing).toBeNull();
    expect(t.controller.state.active).toMatchObject({
      callId: 'c1',
      peerUserId: 'bob',
      isInitiator: true,
      phase: 'connecting',
    });

    t.socket.emit('call-accepted', { callId: 'c1' });
    expect(t.controller.state.active).toMatchObject({ phase: 'connected', connectedAt: 1_000 });
  });

  it('takes call-initiated that arrives before the reply', async () => {
    const t = setup();
    const reply = deferred<{ callId: string }>();
    t.socket.answer('initiate-call', () => reply.promise);
    const starting = t.controller.startCall('bob');
    await vi.advanceTimersByTimeAsync(0);
    t.socket.emit('call-initiated', { callId: 'c1', targetUserId: 'bob' });
    expect(t.controller.state.active).toMatchObject({ callId: 'c1', phase: 'connecting' });
    reply.resolve({ callId: 'c1' });
    await starting;
    expect(t.controller.state.placing).toBeNull();
    expect(t.controller.state.active).toMatchObject({ callId: 'c1', phase: 'connecting' });
  });

  it('is cleared with the declined outcome on call-rejected', async () => {
    const t = await outgoing();
    t.socket.emit('call-rejected', { callId: 'c1' });
    expect(t.controller.state.active).toBeNull();
    expect(t.controller.state.outcome).toBe('declined');
    t.controller.dismissOutcome();
    expect(t.controller.state.outcome).toBeNull();
  });

  it.each([
    ['USER_BUSY', 'busy'],
    ['USER_UNAVAILABLE', 'unavailable'],
    ['CALL_NOT_FOUND', 'error'],
  ] as const)('turns the initiate-call error %s into the %s outcome', async (code, outcome) => {
    const t = setup();
    t.socket.answer('initiate-call', async () => {
      throw new ApiError(409, code, code);
    });
    await t.controller.startCall('bob');
    expect(t.controller.state).toMatchObject({ placing: null, active: null, outcome });
  });

  it('gives the error outcome when the socket is down', async () => {
    const t = setup();
    t.socket.answer('initiate-call', async () => {
      throw new ApiError(0, null, 'The socket is not connected');
    });
    await t.controller.startCall('bob');
    expect(t.controller.state.outcome).toBe('error');
  });

  it('starts no call without the microphone', async () => {
    const t = setup(async () => false);
    await t.controller.startCall('bob');
    expect(t.socket.requests).toEqual([]);
    expect(t.controller.state).toMatchObject({ placing: null, active: null, outcome: 'microphone-required' });
  });

  it('starts no second call while one is placed', async () => {
    const t = await outgoing();
    await t.controller.startCall('carol');
    expect(t.socket.sent('initiate-call')).toHaveLength(1);
  });

  it('cancelled before the reply, ends the call once the server names it', async () => {
    const t = setup();
    const reply = deferred<{ callId: string }>();
    t.socket.answer('initiate-call', () => reply.promise);
    const starting = t.controller.startCall('bob');
    await vi.advanceTimersByTimeAsync(0);
    t.controller.end();
    expect(t.controller.state.placing).toBeNull();
    reply.resolve({ callId: 'c1' });
    await starting;
    expect(t.socket.sent('end-call')).toEqual([{ callId: 'c1' }]);
    expect(t.controller.state.placing).toBeNull();
    // Its late confirmation is not taken for a new call.
    t.socket.emit('call-initiated', { callId: 'c1', targetUserId: 'bob' });
    expect(t.controller.state.active).toBeNull();
  });

  it('cancelled after the reply, sends end-call at once', async () => {
    const t = setup();
    await t.controller.startCall('bob');
    t.controller.end();
    expect(t.socket.sent('end-call')).toEqual([{ callId: 'c1' }]);
    expect(t.controller.state.placing).toBeNull();
  });

  it('takes call-ended before call-initiated: unavailable', async () => {
    const t = setup();
    await t.controller.startCall('bob');
    t.socket.emit('call-ended', { callId: 'c1', reason: 'unavailable' });
    expect(t.controller.state).toMatchObject({ placing: null, active: null, outcome: 'unavailable' });
  });
});

describe('call-ended cleanup', () => {
  it.each([
    ['timeout', 'timeout'],
    ['busy', 'busy'],
    ['declined', 'declined'],
    ['unavailable', 'unavailable'],
    ['error', 'error'],
    ['hangup', null],
  ] as const)('clears a connecting call 1 s after call-ended %s (outcome %s)', async (reason, outcome) => {
    const t = await outgoing();
    t.socket.emit('call-ended', { callId: 'c1', reason });
    expect(t.controller.state.active).toMatchObject({ phase: 'ended', endReason: reason });
    expect(t.controller.state.outcome).toBe(outcome);
    await vi.advanceTimersByTimeAsync(CALL_TIMERS.cleanupDelayMs - 1);
    expect(t.controller.state.active).not.toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(t.controller.state.active).toBeNull();
    expect(t.controller.state.outcome).toBe(outcome);
    expect(t.socket.sent('end-call')).toEqual([]);
  });

  it('clears a connected call at once', async () => {
    const t = await outgoing();
    t.socket.emit('call-accepted', { callId: 'c1' });
    t.socket.emit('call-ended', { callId: 'c1', reason: 'hangup' });
    expect(t.controller.state.active).toBeNull();
    expect(t.controller.state.outcome).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each(['webrtc-failed', 'peer-connection-failed'] as const)(
    'clears a connecting call at once on %s',
    async (reason) => {
      const t = await outgoing();
      t.socket.emit('call-ended', { callId: 'c1', reason });
      expect(t.controller.state.active).toBeNull();
      expect(t.controller.state.outcome).toBe('error');
      expect(vi.getTimerCount()).toBe(0);
    },
  );

  it('clears at once on webrtc-failed even with the socket down', async () => {
    const t = await outgoing();
    t.socket.setStatus('reconnecting');
    t.socket.emit('call-ended', { callId: 'c1', reason: 'webrtc-failed' });
    expect(t.controller.state.active).toBeNull();
  });

  it('with the socket down, waits 30 s for it and then clears', async () => {
    const t = await outgoing();
    t.socket.emit('call-accepted', { callId: 'c1' });
    const listeners = t.socket.listenerCount;
    t.socket.setStatus('reconnecting');
    t.socket.emit('call-ended', { callId: 'c1', reason: 'hangup' });
    expect(t.controller.state.active).toMatchObject({ phase: 'ended' });
    await vi.advanceTimersByTimeAsync(CALL_TIMERS.endReconnectWaitMs - 1);
    expect(t.controller.state.active).not.toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(t.controller.state.active).toBeNull();
    expect(t.socket.listenerCount).toBe(listeners);
  });

  it('with the socket down, a connected call is cleared as soon as the socket is back', async () => {
    const t = await outgoing();
    t.socket.emit('call-accepted', { callId: 'c1' });
    t.socket.setStatus('reconnecting');
    t.socket.emit('call-ended', { callId: 'c1', reason: 'hangup' });
    await vi.advanceTimersByTimeAsync(10_000);
    t.socket.setStatus('connecting');
    expect(t.controller.state.active).not.toBeNull();
    t.socket.setStatus('connected');
    expect(t.controller.state.active).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('with the socket down, a connecting call is cleared 1 s after the socket is back', async () => {
    const t = await outgoing();
    t.socket.setStatus('reconnecting');
    t.socket.emit('call-ended', { callId: 'c1', reason: 'timeout' });
    await vi.advanceTimersByTimeAsync(5_000);
    t.socket.setStatus('connected');
    await vi.advanceTimersByTimeAsync(CALL_TIMERS.cleanupDelayMs - 1);
    expect(t.controller.state.active).not.toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(t.controller.state.active).toBeNull();
    // The 30 s wait was cancelled with it.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ignores a second call-ended for a call already ending', async () => {
    const t = await outgoing();
    t.socket.emit('call-ended', { callId: 'c1', reason: 'timeout' });
    t.socket.emit('call-ended', { callId: 'c1', reason: 'hangup' });
    expect(t.controller.state.active).toMatchObject({ endReason: 'timeout' });
    expect(vi.getTimerCount()).toBe(1);
  });
});

describe('events for another call', () => {
  it('are ignored by an active call', async () => {
    const t = await outgoing();
    const before = t.controller.state;
    t.socket.emit('call-accepted', { callId: 'other' });
    t.socket.emit('call-rejected', { callId: 'other' });
    t.socket.emit('call-ended', { callId: 'other', reason: 'hangup' });
    t.socket.emit('call-initiated', { callId: 'other', targetUserId: 'bob' });
    t.socket.emit('incoming-call', { callId: 'other', caller: alice });
    t.controller.connectionChanged('other', 'failed');
    t.controller.peerConnected('other');
    t.controller.notificationDismissed('other');
    expect(t.controller.state).toBe(before);
    expect(t.ringtone.play).not.toHaveBeenCalled();
    expect(t.socket.requests.map((r) => r.method)).toEqual(['initiate-call']);
  });

  it('are ignored with no call at all', () => {
    const t = setup();
    t.socket.emit('call-initiated', { callId: 'c1', targetUserId: 'bob' });
    t.socket.emit('call-accepted', { callId: 'c1' });
    t.socket.emit('call-ended', { callId: 'c1', reason: 'busy' });
    expect(t.controller.state).toMatchObject({ placing: null, incoming: null, active: null, outcome: null });
  });

  it('call-initiated for a different call id than the reply is ignored', async () => {
    const t = setup();
    await t.controller.startCall('bob');
    t.socket.emit('call-initiated', { callId: 'stale', targetUserId: 'bob' });
    expect(t.controller.state.active).toBeNull();
  });

  it('are ignored by a ringing call', () => {
    const t = setup();
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    t.socket.emit('call-ended', { callId: 'other', reason: 'answered-elsewhere' });
    expect(t.controller.state.incoming?.callId).toBe('c1');
    expect(t.ringtone.stop).not.toHaveBeenCalled();
  });
});

describe('incoming call', () => {
  it('is stored and rings; a second one is ignored', () => {
    const t = setup();
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    t.socket.emit('incoming-call', { callId: 'c2', caller: { ...alice, id: 'carol' } });
    expect(t.controller.state.incoming).toEqual({ callId: 'c1', caller: alice });
    expect(t.ringtone.play).toHaveBeenCalledOnce();
  });

  it('accepted: stops the ringtone, asks for the microphone, closes the notification, connects as callee', async () => {
    const t = setup();
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    await t.controller.accept();
    expect(t.ringtone.stop).toHaveBeenCalled();
    expect(t.ensureMicrophone).toHaveBeenCalledExactlyOnceWith('accept');
    expect(t.notification.close).toHaveBeenCalledWith('c1');
    expect(t.socket.sent('accept-call')).toEqual([{ callId: 'c1' }]);
    expect(t.controller.state.incoming).toBeNull();
    expect(t.controller.state.active).toMatchObject({
      callId: 'c1',
      peerUserId: 'alice',
      peer: alice,
      isInitiator: false,
      phase: 'connecting',
    });
    t.controller.peerConnected('c1');
    expect(t.controller.state.active).toMatchObject({ phase: 'connected', connectedAt: 1_000 });
  });

  it("sends the tab's answer to the offer that came while ringing with accept-call, and says when it went through", async () => {
    const acceptance = { answer: vi.fn(async () => 'answer-sdp'), accepted: vi.fn() };
    const t = setup(async () => true, acceptance);
    const reply = deferred<{ ok: true }>();
    t.socket.answer('accept-call', () => reply.promise);
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    const accepting = t.controller.accept();
    await vi.advanceTimersByTimeAsync(0);
    expect(acceptance.answer).toHaveBeenCalledExactlyOnceWith('c1');
    expect(t.socket.sent('accept-call')).toEqual([{ callId: 'c1', sdp: 'answer-sdp' }]);
    expect(acceptance.accepted).not.toHaveBeenCalled();
    reply.resolve({ ok: true });
    await accepting;
    expect(acceptance.accepted).toHaveBeenCalledExactlyOnceWith('c1');
  });

  it('accepts without an answer when none is ready or making it broke; a call ended meanwhile is not accepted', async () => {
    const none = setup(async () => true, { answer: async () => null, accepted: vi.fn() });
    await answered(none);
    expect(none.socket.sent('accept-call')).toEqual([{ callId: 'c1' }]);

    const broken = setup(async () => true, {
      answer: async () => {
        throw new Error('no');
      },
      accepted: vi.fn(),
    });
    await answered(broken);
    expect(broken.socket.sent('accept-call')).toEqual([{ callId: 'c1' }]);
    expect(broken.log).toHaveBeenCalled();

    const answer = deferred<string | null>();
    const late = setup(async () => true, { answer: () => answer.promise, accepted: vi.fn() });
    late.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    const accepting = late.controller.accept();
    await vi.advanceTimersByTimeAsync(0);
    late.socket.emit('call-ended', { callId: 'c1', reason: 'hangup' });
    answer.resolve('answer-sdp');
    await accepting;
    expect(late.socket.sent('accept-call')).toEqual([]);
  });

  it('stops the ringtone before asking for the microphone', async () => {
    const t = setup();
    t.ensureMicrophone.mockImplementation(async () => {
      expect(t.ringtone.stop).toHaveBeenCalled();
      return true;
    });
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    await t.controller.accept();
    expect(t.ensureMicrophone).toHaveBeenCalledOnce();
  });

  it('accepted without the microphone: sends no accept and says the microphone is required', async () => {
    const t = setup(async () => false);
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    await t.controller.accept();
    expect(t.socket.sent('accept-call')).toEqual([]);
    expect(t.controller.state.outcome).toBe('microphone-required');
    expect(t.controller.state.active).toBeNull();
    // Still stored: it can be rejected (or accepted once the microphone is allowed).
    expect(t.controller.state.incoming?.callId).toBe('c1');
  });

  it('ended while the microphone is asked for: sends no accept', async () => {
    const t = setup();
    const microphone = deferred<boolean>();
    t.ensureMicrophone.mockImplementation(() => microphone.promise);
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    const accepting = t.controller.accept();
    t.socket.emit('call-ended', { callId: 'c1', reason: 'hangup' });
    microphone.resolve(true);
    await accepting;
    expect(t.socket.sent('accept-call')).toEqual([]);
    expect(t.controller.state).toMatchObject({ incoming: null, active: null, outcome: null });
  });

  it('answered in another tab first: cleared silently', async () => {
    const t = setup();
    t.socket.answer('accept-call', async () => {
      throw new ApiError(409, 'CALL_ALREADY_ANSWERED', 'CALL_ALREADY_ANSWERED');
    });
    await answered(t);
    expect(t.controller.state).toMatchObject({ incoming: null, active: null, outcome: null });
  });

  it('accept refused for another reason: cleared with the error outcome', async () => {
    const t = setup();
    t.socket.answer('accept-call', async () => {
      throw new ApiError(0, null, 'The socket is not connected');
    });
    await answered(t);
    expect(t.controller.state).toMatchObject({ active: null, outcome: 'error' });
  });

  it('rejected: sends reject-call and clears', () => {
    const t = setup();
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    t.controller.reject();
    expect(t.socket.sent('reject-call')).toEqual([{ callId: 'c1' }]);
    expect(t.controller.state.incoming).toBeNull();
    expect(t.ringtone.stop).toHaveBeenCalled();
    expect(t.notification.close).toHaveBeenCalledWith('c1');
  });

  it('end() on a ringing call rejects it', () => {
    const t = setup();
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    t.controller.end();
    expect(t.socket.sent('reject-call')).toEqual([{ callId: 'c1' }]);
    expect(t.controller.state.incoming).toBeNull();
  });

  it.each(['answered-elsewhere', 'hangup', 'timeout'] as const)(
    'call-ended %s clears it silently and stops the ringtone',
    (reason) => {
      const t = setup();
      t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
      t.socket.emit('call-ended', { callId: 'c1', reason });
      expect(t.controller.state).toMatchObject({ incoming: null, active: null, outcome: null });
      expect(t.ringtone.stop).toHaveBeenCalled();
      expect(t.notification.close).toHaveBeenCalledWith('c1');
      expect(t.socket.requests).toEqual([]);
    },
  );

  it('an accepted call ending uses the active-call cleanup', async () => {
    const t = await answered();
    t.socket.emit('call-ended', { callId: 'c1', reason: 'hangup' });
    expect(t.controller.state.active).toMatchObject({ phase: 'ended' });
    await vi.advanceTimersByTimeAsync(CALL_TIMERS.cleanupDelayMs);
    expect(t.controller.state.active).toBeNull();
  });
});

describe('notification dismissal', () => {
  it('of a ringing call rejects it', () => {
    const t = setup();
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    t.controller.notificationDismissed('c1');
    expect(t.socket.sent('reject-call')).toEqual([{ callId: 'c1' }]);
    expect(t.controller.state.incoming).toBeNull();
  });

  it('of an active call is ignored', async () => {
    const t = await answered();
    const before = t.controller.state;
    t.controller.notificationDismissed('c1');
    expect(t.controller.state).toBe(before);
    expect(t.socket.sent('reject-call')).toEqual([]);
    expect(t.socket.sent('end-call')).toEqual([]);
  });
});

describe('ending', () => {
  it('sends end-call and clears everything', async () => {
    const t = await outgoing();
    t.socket.emit('call-accepted', { callId: 'c1' });
    t.controller.end();
    expect(t.socket.sent('end-call')).toEqual([{ callId: 'c1' }]);
    expect(t.controller.state).toMatchObject({ placing: null, incoming: null, active: null });
  });

  it('passes a hang-up reason', async () => {
    const t = await outgoing();
    t.controller.end('webrtc-failed');
    expect(t.socket.sent('end-call')).toEqual([{ callId: 'c1', reason: 'webrtc-failed' }]);
  });

  it('during the cleanup delay clears at once, cancels the timer, and sends nothing', async () => {
    const t = await outgoing();
    t.socket.emit('call-ended', { callId: 'c1', reason: 'timeout' });
    t.controller.end();
    expect(t.controller.state.active).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
    expect(t.socket.sent('end-call')).toEqual([]);
  });

  it('logs a failed end-call and still clears', async () => {
    const t = await outgoing();
    t.socket.answer('end-call', async () => {
      throw new ApiError(404, 'CALL_NOT_FOUND', 'CALL_NOT_FOUND');
    });
    t.controller.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.controller.state.active).toBeNull();
    expect(t.log).toHaveBeenCalledWith('end-call failed', expect.any(ApiError));
  });
});

describe('how the call ended (for the card that follows it)', () => {
  /** A controller whose clock the test moves. */
  function clocked() {
    let now = 10_000;
    const socket = new FakeCallSocket();
    socket.answer('initiate-call', async () => ({ callId: 'c1' }));
    const controller = new CallController({
      socket,
      ensureMicrophone: async () => true,
      ringtone: { play: vi.fn(), stop: vi.fn() },
      notification: { close: vi.fn() },
      now: () => now,
    });
    return { socket, controller, advance: (ms: number) => (now += ms) };
  }

  it('the other party hangs up: their hang-up, and how long it was connected', async () => {
    const t = clocked();
    await t.controller.startCall('bob');
    t.socket.emit('call-initiated', { callId: 'c1', targetUserId: 'bob' });
    t.advance(4_000); // ringing does not count
    t.socket.emit('call-accepted', { callId: 'c1' });
    t.advance(7_500);
    t.socket.emit('call-ended', { callId: 'c1', reason: 'hangup' });
    expect(t.controller.state).toMatchObject({
      active: null,
      outcome: null,
      ending: { peerUserId: 'bob', connectedSeconds: 7, endedBy: 'peer', reason: 'hangup' },
    });
  });

  it('we hang up: ours, with the length', async () => {
    const t = clocked();
    await t.controller.startCall('bob');
    t.socket.emit('call-initiated', { callId: 'c1', targetUserId: 'bob' });
    t.socket.emit('call-accepted', { callId: 'c1' });
    t.advance(65_000);
    t.controller.end();
    expect(t.controller.state).toMatchObject({
      active: null,
      ending: { connectedSeconds: 65, endedBy: 'self' },
    });
    t.controller.dismissOutcome();
    expect(t.controller.state.ending).toBeNull();
  });

  it('declined: the ending names whom we called', async () => {
    const t = clocked();
    await t.controller.startCall('bob');
    t.socket.emit('call-initiated', { callId: 'c1', targetUserId: 'bob' });
    t.socket.emit('call-rejected', { callId: 'c1' });
    expect(t.controller.state).toMatchObject({
      outcome: 'declined',
      ending: { peerUserId: 'bob', connectedSeconds: null, reason: 'declined' },
    });
  });
});

describe('connection drops', () => {
  it('go disconnected, reconnecting, and back to ok', async () => {
    const t = await outgoing();
    t.socket.emit('call-accepted', { callId: 'c1' });
    t.controller.connectionChanged('c1', 'disconnected');
    expect(t.controller.state.active?.connection).toBe('disconnected');
    t.controller.connectionChanged('c1', 'reconnecting');
    expect(t.controller.state.active?.connection).toBe('reconnecting');
    t.controller.connectionChanged('c1', 'ok');
    expect(t.controller.state.active).toMatchObject({ connection: 'ok', phase: 'connected' });
    expect(t.socket.sent('end-call')).toEqual([]);
  });

  it('failed: shows failed, ends the call with peer-connection-failed, clears 1 s later', async () => {
    const t = await outgoing();
    t.socket.emit('call-accepted', { callId: 'c1' });
    t.controller.connectionChanged('c1', 'disconnected');
    t.controller.connectionChanged('c1', 'reconnecting');
    t.controller.connectionChanged('c1', 'failed');
    expect(t.controller.state.active).toMatchObject({ connection: 'failed', phase: 'ended' });
    expect(t.controller.state.outcome).toBe('error');
    expect(t.socket.sent('end-call')).toEqual([{ callId: 'c1', reason: 'peer-connection-failed' }]);
    // The server's own call-ended for it changes nothing more.
    t.socket.emit('call-ended', { callId: 'c1', reason: 'peer-connection-failed' });
    await vi.advanceTimersByTimeAsync(CALL_TIMERS.cleanupDelayMs - 1);
    expect(t.controller.state.active).not.toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(t.controller.state.active).toBeNull();
  });

  it('after the call ended are ignored', async () => {
    const t = await outgoing();
    t.socket.emit('call-ended', { callId: 'c1', reason: 'timeout' });
    t.controller.connectionChanged('c1', 'failed');
    expect(t.socket.sent('end-call')).toEqual([]);
    expect(t.controller.state.active?.connection).toBe('ok');
  });
});

describe('dispose (logout, page unload)', () => {
  it('ends the active call, clears timers and state, and stops listening', async () => {
    const t = await outgoing();
    const seen = vi.fn();
    t.controller.subscribe(seen);
    t.socket.setStatus('reconnecting');
    t.socket.emit('call-accepted', { callId: 'c1' });
    t.controller.dispose();
    expect(t.socket.sent('end-call')).toEqual([{ callId: 'c1' }]);
    expect(t.controller.state).toMatchObject({ placing: null, incoming: null, active: null, outcome: null });
    expect(vi.getTimerCount()).toBe(0);
    expect(t.socket.listenerCount).toBe(0);
    t.controller.dispose();
    expect(t.socket.sent('end-call')).toHaveLength(1);
    const calls = seen.mock.calls.length;
    t.socket.emit('incoming-call', { callId: 'c2', caller: alice });
    expect(seen).toHaveBeenCalledTimes(calls);
  });

  it('clears the 30 s wait of a call that ended with the socket down', async () => {
    const t = await outgoing();
    t.socket.setStatus('reconnecting');
    t.socket.emit('call-ended', { callId: 'c1', reason: 'hangup' });
    expect(vi.getTimerCount()).toBe(1);
    t.controller.endForUnload();
    expect(vi.getTimerCount()).toBe(0);
    expect(t.socket.listenerCount).toBe(0);
    expect(t.controller.state.active).toBeNull();
    // Already over on the server: nothing to end.
    expect(t.socket.sent('end-call')).toEqual([]);
  });

  it('ends a call still being placed once the server names it', async () => {
    const t = setup();
    const reply = deferred<{ callId: string }>();
    t.socket.answer('initiate-call', () => reply.promise);
    const starting = t.controller.startCall('bob');
    await vi.advanceTimersByTimeAsync(0);
    t.controller.dispose();
    reply.resolve({ callId: 'c1' });
    await starting;
    expect(t.socket.sent('end-call')).toEqual([{ callId: 'c1' }]);
    expect(t.controller.state.placing).toBeNull();
  });

  it('stops a ringing call here without rejecting it (other tabs may answer)', () => {
    const t = setup();
    t.socket.emit('incoming-call', { callId: 'c1', caller: alice });
    t.controller.dispose();
    expect(t.ringtone.stop).toHaveBeenCalled();
    expect(t.notification.close).toHaveBeenCalledWith('c1');
    expect(t.socket.requests).toEqual([]);
    expect(t.controller.state.incoming).toBeNull();
  });

  it('refuses new calls afterwards', async () => {
    const t = setup();
    t.controller.dispose();
    await t.controller.startCall('bob');
    expect(t.socket.requests).toEqual([]);
  });
});
