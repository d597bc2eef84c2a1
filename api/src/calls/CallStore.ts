/**
 * Where calls live, so that every API process sees the same ones (RedisCallStore with
 * REDIS_URL, this memory store for a single process). Each person holds at most one call:
 * the claim on both parties is taken in one step, so two people calling each other at the
 * same moment make one call and the other finds them busy.
 */
import type { Call } from './Call.ts';

export interface CallStore {
  /** Stores a ringing call and claims both parties; false (nothing stored) when either is in a call. */
  create(call: Call): Promise<boolean>;
  get(callId: string): Promise<Call | null>;
  /** The call `userId` is in or ringing for, if any. */
  callOf(userId: string): Promise<Call | null>;
  /**
   * Binds a ringing call to the callee's tab `connectionId` and marks it connected; null when
   * it is not ringing any more (answered by another tab, ended), so the first answer wins.
   */
  answer(callId: string, connectionId: string, nodeId: string, at: number): Promise<Call | null>;
  /**
   * Removes the call and frees both parties; with `onlyIfRinging`, only a call nobody answered.
   * Answers the removed call, or null when there was none (so exactly one remover wins).
   */
  remove(callId: string, options?: { onlyIfRinging?: boolean }): Promise<Call | null>;
  /** Every call in the store, for the sweep of calls whose process died. */
  all(): Promise<Call[]>;
}

/** A single process: calls in its own memory. */
export class MemoryCallStore implements CallStore {
  readonly #calls = new Map<string, Call>();
  readonly #claims = new Map<string, string>();

  async create(call: Call): Promise<boolean> {
    if (this.#claims.has(call.callerId) || this.#claims.has(call.calleeId)) return false;
    this.#claims.set(call.callerId, call.id);
    this.#claims.set(call.calleeId, call.id);
    this.#calls.set(call.id, { ...call });
    return true;
  }

  async get(callId: string): Promise<Call | null> {
    const call = this.#calls.get(callId);
    return call ? { ...call } : null;
  }

  async callOf(userId: string): Promise<Call | null> {
    const callId = this.#claims.get(userId);
    return callId ? this.get(callId) : null;
  }

  async answer(callId: string, connectionId: string, nodeId: string, at: number): Promise<Call | null> {
    const call = this.#calls.get(callId);
    if (call?.status !== 'ringing') return null;
    call.status = 'connected';
    call.calleeConnectionId = connectionId;
    call.calleeNodeId = nodeId;
    call.answeredAt = at;
    return { ...call };
  }

  async remove(callId: string, { onlyIfRinging = false } = {}): Promise<Call | null> {
    const call = this.#calls.get(callId);
    if (!call || (onlyIfRinging && call.status !== 'ringing')) return null;
    this.#calls.delete(callId);
    for (const userId of [call.callerId, call.calleeId])
      if (this.#claims.get(userId) === callId) this.#claims.delete(userId);
    return call;
  }

  async all(): Promise<Call[]> {
    return [...this.#calls.values()].map((call) => ({ ...call }));
  }
}
