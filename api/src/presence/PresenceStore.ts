/**
 * Who is online, across every API process. A process reports only its own 0↔1
 * transitions per user (first tab opened, last tab gone); the store answers whether
 * that made the user online or offline everywhere.
 */

export interface PresenceStore {
  /** This process now has the user; true when no process had them before. */
  connect(userId: string): Promise<boolean>;
  /** This process no longer has the user; true when no process has them now. */
  disconnect(userId: string): Promise<boolean>;
  /** The subset of `userIds` online anywhere. */
  onlineAmong(userIds: readonly string[]): Promise<Set<string>>;
  /** Records whether the user is in a call. */
  setInCall(userId: string, inCall: boolean): Promise<void>;
  /** The subset of `userIds` in a call. */
  inCallAmong(userIds: readonly string[]): Promise<Set<string>>;
  /** Called for users who went offline because the process holding them died. */
  onExpired(handler: (userId: string) => void): void;
  close(): Promise<void>;
}

/** A single process: presence is its own memory. */
export class MemoryPresenceStore implements PresenceStore {
  #online = new Set<string>();
  #inCall = new Set<string>();

  async connect(userId: string) {
    if (this.#online.has(userId)) return false;
    this.#online.add(userId);
    return true;
  }

  async disconnect(userId: string) {
    this.#inCall.delete(userId);
    return this.#online.delete(userId);
  }

  async onlineAmong(userIds: readonly string[]) {
    return new Set(userIds.filter((id) => this.#online.has(id)));
  }

  async setInCall(userId: string, inCall: boolean) {
    if (inCall) this.#inCall.add(userId);
    else this.#inCall.delete(userId);
  }

  async inCallAmong(userIds: readonly string[]) {
    return new Set(userIds.filter((id) => this.#inCall.has(id)));
  }

  onExpired(): void {}

  async close() {
    this.#online.clear();
    this.#inCall.clear();
  }
}
