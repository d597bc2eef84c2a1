/**
 * One-to-one call signalling: the rules of spec section 4 "Call" on top of a CallStore that
 * every API process shares. The API only relays; the audio goes peer to peer.
 *
 * A call is bound to two tabs: the caller's tab that started it and the callee's tab that
 * answered. Only they get its signalling and may relay; anyone else asking about the call
 * hears 404 CALL_NOT_FOUND, whether or not it exists, and nothing is sent.
 */
import { randomUUID } from 'node:crypto';
import { type CallEndReason, type CallHangupReason, PRESENCE, type ServerEvents } from '@voice/protocol';
import { AppError } from '../errors.ts';
import type { FriendRepository } from '../friends/FriendRepository.ts';
import type { Logger } from '../logger.ts';
import type { PresenceStore } from '../presence/PresenceStore.ts';
import type { SocketContext } from '../socket/handlers.ts';
import type { Notifier } from '../socket/Notifier.ts';
import { summarize } from '../users/presenter.ts';
import type { UserRepository } from '../users/UserRepository.ts';
import { boundRole, type Call, otherParty, roleOf } from './Call.ts';
import type { CallStore } from './CallStore.ts';

export interface CallServiceDeps {
  store: CallStore;
  friends: FriendRepository;
  users: UserRepository;
  presence: PresenceStore;
  notifier: Notifier;
  logger: Logger;
  /** How long a call rings before it ends with `timeout`. */
  ringTimeoutMs: number;
  /** This API process, recorded in the calls whose tabs it holds. */
  nodeId: string;
  /**
   * Which of these processes are alive (their presence heartbeat), for ending the calls of a
   * process that died; without it (a single process) there is no sweep.
   */
  nodesAlive?: (nodeIds: string[]) => Promise<Set<string> | null>;
  /** How often calls are checked for a dead process; PRESENCE.heartbeatMs by default. */
  sweepMs?: number;
  /** Told of every call that ends (call history). */
  onEnded?: (call: Call, reason: CallEndReason, endedAt: number) => Promise<void>;
}

/** Told of a call just answered, before the caller hears of it (OneVoice takes both out of their rooms). */
export type AnsweredListener = (call: Call) => Promise<void>;

/** The relayed WebRTC messages and their payloads. */
export type RelayEvent = 'webrtc-offer' | 'webrtc-answer' | 'webrtc-ice-candidate';

/** Told to the other party of an answered call only. */
export type AnsweredCallEvent = 'call-muted';

export class CallService {
  readonly #deps: CallServiceDeps;
  /** Ring timers of the calls this process started. */
  readonly #ringing = new Map<string, NodeJS.Timeout>();
  /** Work started by a timer or a closed tab, awaited by close() so none outlives the service. */
  readonly #background = new Set<Promise<unknown>>();
  readonly #sweep: NodeJS.Timeout | null = null;
  /** Processes found dead by the last sweep: a call ends when the next one agrees. */
  #suspects = new Set<string>();
  readonly #answered: AnsweredListener[] = [];
  #closed = false;

  constructor(deps: CallServiceDeps) {
    this.#deps = deps;
    if (deps.nodesAlive) {
      this.#sweep = setInterval(
        () => void this.#track(this.sweepDeadNodes()),
        deps.sweepMs ?? PRESENCE.heartbeatMs,
      );
      this.#sweep.unref();
    }
  }

  /** Rings every tab of `targetUserId`; refused when not friends, unavailable or busy. */
  async initiate(ctx: SocketContext, targetUserId: string): Promise<{ callId: string }> {
    const { store, friends, users, presence, notifier } = this.#deps;
    if (targetUserId === ctx.userId) throw new AppError('VALIDATION', 'targetUserId');
    if (!(await friends.areFriends(ctx.userId, targetUserId))) throw new AppError('NOT_FRIENDS');
    const online = await presence.onlineAmong([targetUserId]);
    // Unknown (Redis away) is tried anyway: the callee's tabs ring if there are any.
    if (online && !online.has(targetUserId)) throw new AppError('USER_UNAVAILABLE');
    const caller = await users.findById(ctx.userId);
    if (!caller) throw new AppError('UNAUTHORIZED');

    const call: Call = {
      id: randomUUID(),
      callerId: ctx.userId,
      calleeId: targetUserId,
      callerConnectionId: ctx.connectionId,
      calleeConnectionId: null,
      callerNodeId: this.#deps.nodeId,
      calleeNodeId: null,
      status: 'ringing',
      createdAt: Date.now(),
      answeredAt: null,
    };
    if (!(await store.create(call))) throw new AppError('USER_BUSY');
    this.#startRinging(call.id);
    await notifier.notifyConnection(ctx.userId, ctx.connectionId, 'call-initiated', {
      callId: call.id,
      targetUserId,
    });
    await notifier.notify(targetUserId, 'incoming-call', { callId: call.id, caller: summarize(caller) });
    return { callId: call.id };
  }

  /**
   * The callee's tab takes the call; the first of their tabs to accept wins. `answerSdp`, the
   * tab's answer to the offer relayed while ringing, follows `call-accepted` to the caller.
   */
  async accept(ctx: SocketContext, callId: string, answerSdp?: string): Promise<void> {
    const { store, notifier } = this.#deps;
    const ringing = await store.get(callId);
    if (!ringing || ringing.calleeId !== ctx.userId) throw new AppError('CALL_NOT_FOUND');
    const call = await store.answer(callId, ctx.connectionId, this.#deps.nodeId, Date.now());
    if (!call) {
      const now = await store.get(callId);
      throw new AppError(now?.status === 'connected' ? 'CALL_ALREADY_ANSWERED' : 'CALL_NOT_FOUND');
    }
    this.#stopRinging(callId);
    // Before the caller hears: no audio flows between them until then.
    await this.#tellAnswered(call);
    await notifier.notifyConnection(call.callerId, call.callerConnectionId, 'call-accepted', { callId });
    if (answerSdp !== undefined)
      await notifier.notifyConnection(call.callerId, call.callerConnectionId, 'webrtc-answer', {
        callId,
        sdp: answerSdp,
      });
    await notifier.notifyOtherConnections(call.calleeId, ctx.connectionId, 'call-ended', {
      callId,
      reason: 'answered-elsewhere',
    });
    await this.#setInCall(call, true);
    // Ended meanwhile (a hangup racing the answer): its "not in call" may have landed first.
    if (!(await store.get(callId))) await this.#setInCall(call, false);
  }

  /** The callee declines a ringing call, from any of their tabs. */
  async reject(ctx: SocketContext, callId: string): Promise<void> {
    const { store, notifier } = this.#deps;
    const ringing = await store.get(callId);
    if (!ringing || ringing.calleeId !== ctx.userId) throw new AppError('CALL_NOT_FOUND');
    const call = await store.remove(callId, { onlyIfRinging: true });
    if (!call) {
      const now = await store.get(callId);
      throw new AppError(now?.status === 'connected' ? 'CALL_ALREADY_ANSWERED' : 'CALL_NOT_FOUND');
    }
    this.#stopRinging(callId);
    await this.#record(call, 'declined');
    await notifier.notifyConnection(call.callerId, call.callerConnectionId, 'call-rejected', { callId });
    // Every tab of the callee stops ringing.
    await notifier.notify(call.calleeId, 'call-ended', { callId, reason: 'declined' });
  }

  /**
   * A party hangs up (or its browser gave up): the caller's tab cancels a ringing call or
   * ends a connected one; the callee ends it from the tab that answered, or declines a ringing one.
   */
  async end(ctx: SocketContext, callId: string, reason: CallHangupReason = 'hangup'): Promise<void> {
    const call = await this.#deps.store.get(callId);
    if (!call) throw new AppError('CALL_NOT_FOUND');
    const role = boundRole(call, ctx.userId, ctx.connectionId);
    if (!role) {
      if (call.status === 'ringing' && roleOf(call, ctx.userId) === 'callee') return this.reject(ctx, callId);
      throw new AppError('CALL_NOT_FOUND');
    }
    if (!(await this.#finish(callId, reason))) throw new AppError('CALL_NOT_FOUND');
  }

  /**
   * Passes an offer, answer or candidate from one bound tab to the other. While the call rings
   * the caller's offer and candidates go to every tab of the callee, so the one that accepts
   * has its answer ready; nothing else is relayed before the answer.
   */
  async relay<E extends RelayEvent>(ctx: SocketContext, event: E, data: ServerEvents[E]): Promise<void> {
    const call = await this.#deps.store.get(data.callId);
    const role = call ? boundRole(call, ctx.userId, ctx.connectionId) : null;
    if (!call || !role) throw new AppError('CALL_NOT_FOUND');
    if (call.status === 'ringing') {
      if (role !== 'caller' || event === 'webrtc-answer') throw new AppError('CALL_NOT_FOUND');
      await this.#deps.notifier.notify(call.calleeId, event, data);
      return;
    }
    const other = otherParty(call, role);
    if (!other.connectionId) throw new AppError('CALL_NOT_FOUND');
    await this.#deps.notifier.notifyConnection(other.userId, other.connectionId, event, data);
  }

  /** Passes `event` from a bound tab of an answered call to the other party's bound tab. */
  async tellOtherParty<E extends AnsweredCallEvent>(
    ctx: SocketContext,
    event: E,
    data: ServerEvents[E],
  ): Promise<void> {
    const call = await this.#deps.store.get(data.callId);
    const role = call ? boundRole(call, ctx.userId, ctx.connectionId) : null;
    if (!call || !role || call.status !== 'connected') throw new AppError('CALL_NOT_FOUND');
    const other = otherParty(call, role);
    if (!other.connectionId) throw new AppError('CALL_NOT_FOUND');
    await this.#deps.notifier.notifyConnection(other.userId, other.connectionId, event, data);
  }

  /** Has `listener` told of every call this process sees answered. */
  onAnswered(listener: AnsweredListener): void {
    this.#answered.push(listener);
  }

  /** Whether `userId` is in an answered call now. */
  async inCall(userId: string): Promise<boolean> {
    return (await this.#deps.store.callOf(userId))?.status === 'connected';
  }

  /**
   * Ends the answered call of `userId`, or the call they are placing, as their hangup (they went
   * into a room); a call ringing for them keeps ringing. False when there was none.
   */
  async endFor(userId: string): Promise<boolean> {
    const call = await this.#deps.store.callOf(userId);
    if (!call || (call.status === 'ringing' && call.callerId !== userId)) return false;
    return this.#finish(call.id, 'hangup');
  }

  /** A tab closed: the call it is bound to ends (hangup for the other party). Never rejects. */
  connectionClosed(ctx: SocketContext): Promise<void> {
    return this.#track(this.#connectionClosed(ctx));
  }

  async #connectionClosed(ctx: SocketContext): Promise<void> {
    try {
      const call = await this.#deps.store.callOf(ctx.userId);
      if (call && boundRole(call, ctx.userId, ctx.connectionId)) await this.#finish(call.id, 'hangup');
    } catch (error) {
      this.#deps.logger.warn('call: not ended after its tab closed', { userId: ctx.userId, error });
    }
  }

  /**
   * Ends the calls bound to a tab on a process that died (no heartbeat in two sweeps running,
   * so a Redis that paused for a moment ends nothing): the other party hears `error`.
   */
  async sweepDeadNodes(): Promise<void> {
    const { store, nodesAlive, nodeId, logger } = this.#deps;
    if (!nodesAlive || this.#closed) return;
    try {
      const calls = await store.all();
      const nodeIds = new Set<string>();
      for (const call of calls)
        for (const id of [call.callerNodeId, call.calleeNodeId]) if (id && id !== nodeId) nodeIds.add(id);
      const alive = await nodesAlive([...nodeIds]);
      if (!alive) {
        this.#suspects.clear();
        return;
      }
      const dead = new Set([...nodeIds].filter((id) => !alive.has(id)));
      const confirmed = new Set([...dead].filter((id) => this.#suspects.has(id)));
      this.#suspects = dead;
      for (const call of calls) {
        if (!confirmed.has(call.callerNodeId) && !(call.calleeNodeId && confirmed.has(call.calleeNodeId)))
          continue;
        logger.warn("call: a party's process died; ending the call", { callId: call.id });
        await this.#finish(call.id, 'error');
      }
    } catch (error) {
      this.#suspects.clear();
      logger.warn('call: sweep of dead processes failed', { error });
    }
  }

  /**
   * Stops this process's ring timers and sweep, and waits for what they (or closed tabs)
   * started; the calls themselves live on in the store. Safe to call more than once.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#sweep) clearInterval(this.#sweep);
    for (const timer of this.#ringing.values()) clearTimeout(timer);
    this.#ringing.clear();
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#background.add(work);
    const forget = () => this.#background.delete(work);
    work.then(forget, forget);
    return work;
  }

  async #tellAnswered(call: Call): Promise<void> {
    for (const listener of this.#answered) {
      try {
        await listener(call);
      } catch (error) {
        // The browsers left their rooms before answering; only a stray tab could keep one.
        this.#deps.logger.error('call: answered, but its parties not taken out of their rooms', {
          callId: call.id,
          error,
        });
      }
    }
  }

  /** Removes the call and tells both parties; false when it was already gone. */
  async #finish(callId: string, reason: CallEndReason, { onlyIfRinging = false } = {}): Promise<boolean> {
    const { store, notifier } = this.#deps;
    const call = await store.remove(callId, { onlyIfRinging });
    if (!call) return false;
    this.#stopRinging(callId);
    await this.#record(call, reason);
    await notifier.notifyConnection(call.callerId, call.callerConnectionId, 'call-ended', { callId, reason });
    if (call.calleeConnectionId)
      await notifier.notifyConnection(call.calleeId, call.calleeConnectionId, 'call-ended', {
        callId,
        reason,
      });
    // Nobody answered yet: every tab of the callee is ringing and stops.
    else await notifier.notify(call.calleeId, 'call-ended', { callId, reason });
    if (call.status === 'connected') await this.#setInCall(call, false);
    return true;
  }

  /** Writes the ended call to the history, before the parties hear of the end: a history they reload then has it. */
  async #record(call: Call, reason: CallEndReason): Promise<void> {
    try {
      await this.#deps.onEnded?.(call, reason, Date.now());
    } catch (error) {
      // The call still ends for both; only the history line is missing.
      this.#deps.logger.warn('call: history not written', { callId: call.id, error });
    }
  }

  #startRinging(callId: string): void {
    const timer = setTimeout(() => {
      this.#ringing.delete(callId);
      this.#track(this.#finish(callId, 'timeout', { onlyIfRinging: true })).catch((error: unknown) =>
        this.#deps.logger.error('call: ring timeout failed', { callId, error }),
      );
    }, this.#deps.ringTimeoutMs);
    timer.unref();
    if (this.#closed) clearTimeout(timer);
    else this.#ringing.set(callId, timer);
  }

  #stopRinging(callId: string): void {
    const timer = this.#ringing.get(callId);
    if (timer) clearTimeout(timer);
    this.#ringing.delete(callId);
  }

  /** Both parties' `isInCall`, in the store and to their friends (and their own other tabs). */
  async #setInCall(call: Call, isInCall: boolean): Promise<void> {
    const { presence, friends, notifier, logger } = this.#deps;
    for (const userId of [call.callerId, call.calleeId]) {
      try {
        await presence.setInCall(userId, isInCall);
        const friendIds = await friends.friendIds(userId);
        await notifier.notifyMany(friendIds, 'friend-call-status-changed', { userId, isInCall });
      } catch (error) {
        // The call itself goes on; only the badge is late.
        logger.warn('call: in-call status not updated', { userId, error });
      }
    }
  }
}
