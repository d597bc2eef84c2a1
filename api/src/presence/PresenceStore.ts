/**
 * Who is online, across every API process. A process reports only its own 0↔1
 * transitions per user (first tab opened, last tab gone); the store answers whether
 * that made the user online or offline everywhere.
 *
 * A shared store can be unavailable: then writes throw and reads answer null (unknown),
 * and `resync` afterwards puts back what the process holds.
 */

/** What a resync changed: users now online, and users now offline, everywhere. */
export interface ResyncOutcome {
  online: string[];
  offline: string[];
}

export interface PresenceStore {
  /** This process now has the user; true when no process had them before. */
  connect(userId: string): Promise<boolean>;
  /** This process no longer has the user; true when no process has them now. */
  disconnect(userId: string): Promise<boolean>;
  /** The subset of `userIds` online anywhere; null when that cannot be known now. */
  onlineAmong(userIds: readonly string[]): Promise<Set<string> | null>;
  /** Records whether the user is in a call. */
  setInCall(userId: string, inCall: boolean): Promise<void>;
  /** The subset of `userIds` in a call; null when that cannot be known now. */
  inCallAmong(userIds: readonly string[]): Promise<Set<string> | null>;
  /**
   * Makes the store hold exactly `local` for this process, after it lost or missed changes
   * (Redis restarted empty, or hung while people came and went). `departed` are users who
   * left this process while the store could not be told.
   */
  resync(local: readonly string[], departed: readonly string[]): Promise<ResyncOutcome>;
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

  async resync(): Promise<ResyncOutcome> {
    // Memory is never lost or missed while the process lives.
    return { online: [], offline: [] };
  }

  onExpired(): void {}

  async close() {
    this.#online.clear();
    this.#inCall.clear();
  }
}
