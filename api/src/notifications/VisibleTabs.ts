/**
 * Which of this process's app-socket tabs are shown (`set-visibility`): a person with a
 * shown tab sees the in-page alert, so gets no push. A tab that never said counts as hidden.
 *
 * Per process: with several API processes, a shown tab on another process is not seen here,
 * and the person gets the push as well as the in-page alert (a duplicate, never a miss).
 */
import type { SocketContext, SocketLifecycle } from '../socket/handlers.ts';

export class VisibleTabs implements SocketLifecycle {
  /** userId → their shown tabs' connection ids. */
  readonly #shown = new Map<string, Set<string>>();

  set(ctx: SocketContext, visible: boolean): void {
    const tabs = this.#shown.get(ctx.userId);
    if (visible) {
      if (tabs) tabs.add(ctx.connectionId);
      else this.#shown.set(ctx.userId, new Set([ctx.connectionId]));
    } else if (tabs) {
      tabs.delete(ctx.connectionId);
      if (tabs.size === 0) this.#shown.delete(ctx.userId);
    }
  }

  hasVisible(userId: string): boolean {
    return this.#shown.has(userId);
  }

  connectionClosed(ctx: SocketContext): void {
    this.set(ctx, false);
  }
}
