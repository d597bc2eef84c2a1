/**
 * Drives the call state (callState.ts) from the app socket and the person's steps, and owns
 * the timers of spec section 4 "Call": after `call-ended` a connecting call stays 1 s and a
 * connected one goes at once; a call that ends while our socket is down waits for it to come
 * back, 30 s at most. The socket, the microphone, the ringtone and the call notification are
 * injected, so tests drive every path with fakes and fake timers.
 */
import {
  CALL_TIMERS,
  type CallEndReason,
  type CallHangupReason,
  type ClientRequestName,
  type RequestData,
  type RequestReply,
  type ServerEventName,
  type ServerEvents,
} from '@voice/protocol';
import type { SocketStatus } from '../../socket/AppSocket.ts';
import {
  type CallAction,
  type CallConnection,
  type CallOutcome,
  type CallState,
  callReducer,
  hasCall,
  type IncomingCall,
  initialCallState,
} from './callState.ts';

/** What the controller needs of the app socket (AppSocket fits it). */
export interface CallSocket {
  readonly status: SocketStatus;
  request<N extends ClientRequestName>(method: N, data: RequestData<N>): Promise<RequestReply<N>>;
  on<E extends ServerEventName>(event: E, handler: (data: ServerEvents[E]) => void): () => void;
  onStatusChange(listener: (status: SocketStatus) => void): () => void;
}

export interface CallControllerOptions {
  socket: CallSocket;
  /** Resolves true once the microphone may be used (asking the person if needed). */
  ensureMicrophone: (purpose: 'place' | 'accept') => Promise<boolean>;
  /** The incoming-call ringtone: played while a call rings here, stopped on any outcome. */
  ringtone: { play(): void; stop(): void };
  /** The browser notification of an incoming call. */
  notification: { close(callId: string): void };
  /**
   * The callee's side of the media: `answer` is this tab's answer to the offer that came while
   * the call rang, sent with accept-call (null: none yet; the answer follows the offer), and
   * `accepted` is told once accept-call went through.
   */
  acceptance?: { answer(callId: string): Promise<string | null>; accepted(callId: string): void };
  /** Clock for `connectedAt`; Date.now by default. */
  now?: () => number;
  /** Where failed requests are reported (they change nothing the person can act on). */
  log?: (message: string, error: unknown) => void;
}

/** How a call that rang here ended unanswered: the caller gave up, or nobody answered in time. */
const MISSED_REASONS: ReadonlySet<CallEndReason> = new Set(['hangup', 'timeout']);

/** A call that rang here and was not answered anywhere. */
export interface MissedCall {
  callId: string;
  caller: IncomingCall['caller'];
  /** When it stopped ringing (ms since epoch). */
  at: number;
}

/** Reasons after which the call is cleared at once: the peers already know it is gone. */
const IMMEDIATE_REASONS: ReadonlySet<CallEndReason> = new Set(['webrtc-failed', 'peer-connection-failed']);

/** Error ids of `initiate-call` that have their own message. */
const PLACE_OUTCOMES: Readonly<Record<string, CallOutcome>> = {
  USER_BUSY: 'busy',
  USER_UNAVAILABLE: 'unavailable',
};

/** The server's error id of a refused request, if it carried one. */
function errorCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

export class CallController {
  readonly #socket: CallSocket;
  readonly #ensureMicrophone: CallControllerOptions['ensureMicrophone'];
  readonly #ringtone: CallControllerOptions['ringtone'];
  readonly #notification: CallControllerOptions['notification'];
  readonly #acceptance: CallControllerOptions['acceptance'];
  readonly #now: () => number;
  readonly #log: (message: string, error: unknown) => void;
  #state: CallState = initialCallState;
  readonly #listeners = new Set<(state: CallState) => void>();
  readonly #missedListeners = new Set<(missed: MissedCall) => void>();
  readonly #unsubscribe: (() => void)[];
  /** The `startCall` in progress; replaced or nulled when it is cancelled. */
  #attempt: object | null = null;
  #cleanupTimer: ReturnType<typeof setTimeout> | null = null;
  #stopWaiting: (() => void) | null = null;
  #disposed = false;

  constructor(options: CallControllerOptions) {
    this.#socket = options.socket;
    this.#ensureMicrophone = options.ensureMicrophone;
    this.#ringtone = options.ringtone;
    this.#notification = options.notification;
    this.#acceptance = options.acceptance;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? ((message, error) => console.warn(message, error));
    const socket = this.#socket;
    this.#unsubscribe = [
      socket.on('call-initiated', ({ callId, targetUserId }) =>
        this.#dispatch({ type: 'server/call-initiated', callId, targetUserId }),
      ),
      socket.on('call-accepted', ({ callId }) =>
        this.#dispatch({ type: 'server/call-accepted', callId, at: this.#now() }),
      ),
      socket.on('call-rejected', ({ callId }) => {
        if (this.#state.active?.callId === callId) this.#clearTimers();
        this.#dispatch({ type: 'server/call-rejected', callId, at: this.#now() });
      }),
      socket.on('incoming-call', ({ callId, caller }) => {
        this.#dispatch({ type: 'server/incoming-call', callId, caller });
        if (this.#state.incoming?.callId === callId) this.#ringtone.play();
      }),
      socket.on('call-ended', ({ callId, reason }) => this.#ended(callId, reason)),
    ];
  }

  get state(): CallState {
    return this.#state;
  }

  /** Calls `listener` with each call that rang here and ended unanswered (not declined, not answered elsewhere). */
  onMissed(listener: (missed: MissedCall) => void): () => void {
    this.#missedListeners.add(listener);
    return () => this.#missedListeners.delete(listener);
  }

  /** Calls `listener` with each new state. Returns an unsubscribe function. */
  subscribe(listener: (state: CallState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls `targetUserId`: microphone first, then `initiate-call`. Does nothing while in a call. */
  async startCall(targetUserId: string): Promise<void> {
    if (this.#disposed || hasCall(this.#state)) return;
    const attempt = {};
    this.#attempt = attempt;
    this.#dispatch({ type: 'place/started', targetUserId });
    if (!(await this.#ensureMicrophone('place'))) {
      if (this.#attempt === attempt) this.#dispatch({ type: 'place/failed', outcome: 'microphone-required' });
      return;
    }
    if (this.#attempt !== attempt) return;
    let callId: string;
    try {
      ({ callId } = await this.#socket.request('initiate-call', { targetUserId }));
    } catch (error) {
      if (this.#attempt !== attempt) return;
      this.#attempt = null;
      this.#dispatch({ type: 'place/failed', outcome: PLACE_OUTCOMES[errorCode(error) ?? ''] ?? 'error' });
      return;
    }
    if (this.#attempt !== attempt) {
      // Cancelled (or the page is going) while the server was creating it: end it there too.
      this.#send('end-call', { callId });
      return;
    }
    this.#attempt = null;
    this.#dispatch({ type: 'place/replied', callId });
  }

  /** Accepts the ringing call: stops the ringtone, asks for the microphone, then `accept-call`. */
  async accept(): Promise<void> {
    const incoming = this.#state.incoming;
    if (this.#disposed || !incoming || this.#state.active) return;
    const { callId } = incoming;
    this.#ringtone.stop();
    const allowed = await this.#ensureMicrophone('accept');
    // It may have ended, been answered elsewhere or rejected while the person was asked.
    if (this.#state.incoming?.callId !== callId || this.#state.active) return;
    if (!allowed) {
      // No accept is sent: the call keeps ringing on the caller's side until rejected or timed out.
      this.#dispatch({ type: 'outcome/set', outcome: 'microphone-required' });
      return;
    }
    this.#notification.close(callId);
    this.#dispatch({ type: 'incoming/accepted', callId });
    const sdp = await this.#answerFor(callId);
    if (!this.#isLive(callId)) return; // ended (or cleared) while the answer was set
    try {
      await this.#socket.request('accept-call', sdp === null ? { callId } : { callId, sdp });
      this.#acceptance?.accepted(callId);
    } catch (error) {
      // Read afresh: the state changed while the request ran.
      if (this.#activeCallId() !== callId) return;
      this.#clearTimers();
      this.#dispatch({ type: 'call/cleared', callId });
      // Another tab answered, or the caller gave up meanwhile: nothing to say.
      const code = errorCode(error);
      if (code !== 'CALL_ALREADY_ANSWERED' && code !== 'CALL_NOT_FOUND') {
        this.#dispatch({ type: 'outcome/set', outcome: 'error' });
      }
    }
  }

  async #answerFor(callId: string): Promise<string | null> {
    try {
      return (await this.#acceptance?.answer(callId)) ?? null;
    } catch (error) {
      this.#log('The answer for accept-call could not be made', error);
      return null;
    }
  }

  /** Rejects the ringing call. */
  reject(): void {
    const incoming = this.#state.incoming;
    if (!incoming) return;
    this.#dropIncoming(incoming.callId);
    this.#send('reject-call', { callId: incoming.callId });
  }

  /** Ends whatever call there is (hang up, cancel, or reject a ringing one) and clears it. */
  end(reason?: CallHangupReason): void {
    const { active, placing, incoming } = this.#state;
    if (active) {
      this.#clearTimers();
      this.#dispatch({ type: 'call/hung-up', callId: active.callId, at: this.#now() });
      if (active.phase !== 'ended')
        this.#send('end-call', reason ? { callId: active.callId, reason } : { callId: active.callId });
    } else if (placing) {
      this.#attempt = null;
      this.#dispatch({ type: 'place/cancelled' });
      if (placing.callId) this.#send('end-call', { callId: placing.callId });
    } else if (incoming) {
      this.reject();
    }
  }

  /** The person dismissed a call notification: a ringing call is rejected; an active one is not touched. */
  notificationDismissed(callId: string): void {
    if (this.#state.incoming?.callId === callId && !this.#state.active) this.reject();
  }

  /** The peer connection is up (from the peer-connection layer). */
  peerConnected(callId: string): void {
    this.#dispatch({ type: 'peer/connected', callId, at: this.#now() });
  }

  /**
   * The peer connection's health changed (from the peer-connection layer): `disconnected`,
   * `reconnecting` while an ICE restart runs, `ok` again, or `failed`, which ends the call
   * after CALL_TIMERS.cleanupDelayMs so the person sees why.
   */
  connectionChanged(callId: string, connection: CallConnection): void {
    const active = this.#state.active;
    if (active?.callId !== callId || active.phase === 'ended') return;
    if (connection === 'failed') {
      this.peerFailed(callId, 'peer-connection-failed');
      return;
    }
    this.#dispatch({ type: 'connection/changed', callId, connection });
  }

  /**
   * The peer-connection layer gave up: its negotiation broke (`webrtc-failed`) or the
   * connection did not come (back) up (`peer-connection-failed`). The call shows "failed",
   * the other party is told, and the call is cleared after CALL_TIMERS.cleanupDelayMs so the
   * person sees why.
   */
  peerFailed(callId: string, reason: 'webrtc-failed' | 'peer-connection-failed'): void {
    const active = this.#state.active;
    if (active?.callId !== callId || active.phase === 'ended') return;
    this.#dispatch({ type: 'connection/changed', callId, connection: 'failed' });
    this.#dispatch({ type: 'call/ended', callId, reason, at: this.#now() });
    this.#send('end-call', { callId, reason });
    this.#clearTimers();
    this.#cleanupTimer = setTimeout(() => this.#clear(callId), CALL_TIMERS.cleanupDelayMs);
  }

  dismissOutcome(): void {
    this.#dispatch({ type: 'outcome/dismissed' });
  }

  /**
   * Logout or page unload: ends the active call (and a call being placed), stops the ringtone,
   * clears timers and state, and stops listening. A call ringing here is not rejected: the
   * person's other tabs may still answer it. Idempotent.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const { active, placing, incoming } = this.#state;
    if (active && active.phase !== 'ended') this.#send('end-call', { callId: active.callId });
    if (placing?.callId) this.#send('end-call', { callId: placing.callId });
    this.#attempt = null;
    if (incoming) {
      this.#ringtone.stop();
      this.#notification.close(incoming.callId);
    }
    this.#clearTimers();
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#dispatch({ type: 'reset' });
    this.#listeners.clear();
  }

  /** Alias of dispose() for the page's unload handler. */
  endForUnload(): void {
    this.dispose();
  }

  #ended(callId: string, reason: CallEndReason): void {
    const { incoming, active } = this.#state;
    if (incoming?.callId === callId) {
      this.#dropIncoming(callId);
      if (MISSED_REASONS.has(reason)) {
        const missed: MissedCall = { callId, caller: incoming.caller, at: this.#now() };
        for (const listener of [...this.#missedListeners]) listener(missed);
      }
      return;
    }
    if (active?.callId !== callId || active.phase === 'ended') {
      this.#dispatch({ type: 'call/ended', callId, reason, at: this.#now() }); // a call still being placed
      return;
    }
    const wasConnected = active.phase === 'connected';
    this.#dispatch({ type: 'call/ended', callId, reason, at: this.#now() });
    this.#clearTimers();
    if (IMMEDIATE_REASONS.has(reason)) {
      this.#clear(callId);
    } else if (this.#socket.status !== 'connected') {
      // Our socket is down: keep the call until it is back (or 30 s pass) so nothing is cut mid-sync.
      this.#stopWaiting = this.#socket.onStatusChange((status) => {
        if (status !== 'connected') return;
        this.#clearTimers();
        this.#afterEnd(callId, wasConnected);
      });
      this.#cleanupTimer = setTimeout(() => this.#clear(callId), CALL_TIMERS.endReconnectWaitMs);
    } else {
      this.#afterEnd(callId, wasConnected);
    }
  }

  /** The normal cleanup of an ended call: at once when it had connected, else after 1 s. */
  #afterEnd(callId: string, wasConnected: boolean): void {
    if (wasConnected) this.#clear(callId);
    else this.#cleanupTimer = setTimeout(() => this.#clear(callId), CALL_TIMERS.cleanupDelayMs);
  }

  /** Whether `callId` is the active call and has not ended. */
  #isLive(callId: string): boolean {
    const active = this.#state.active;
    return active?.callId === callId && active.phase !== 'ended';
  }

  #activeCallId(): string | null {
    return this.#state.active?.callId ?? null;
  }

  #clear(callId: string): void {
    this.#clearTimers();
    this.#dispatch({ type: 'call/cleared', callId });
  }

  #dropIncoming(callId: string): void {
    this.#ringtone.stop();
    this.#notification.close(callId);
    this.#dispatch({ type: 'incoming/cleared', callId });
  }

  #clearTimers(): void {
    if (this.#cleanupTimer !== null) clearTimeout(this.#cleanupTimer);
    this.#cleanupTimer = null;
    this.#stopWaiting?.();
    this.#stopWaiting = null;
  }

  #send<N extends 'reject-call' | 'end-call'>(method: N, data: RequestData<N>): void {
    this.#socket.request(method, data).catch((error: unknown) => this.#log(`${method} failed`, error));
  }

  #dispatch(action: CallAction): void {
    const next = callReducer(this.#state, action);
    if (next === this.#state) return;
    this.#state = next;
    for (const listener of [...this.#listeners]) listener(next);
  }
}
