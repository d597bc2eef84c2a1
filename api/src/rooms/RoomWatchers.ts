/**
 * The live room list (`watch-rooms`): the tabs on this process that watch it, and what they
 * are told. Every change of a room is one message on the bus (ROOM_CHANGES_CHANNEL: from
 * RoomService when a room is created, changed or deleted, and from here when who is in it
 * changes); each process tells its own watching tabs that may see the room.
 *
 * A room's changes are told one after the other, each with the room as it is when told: told
 * side by side, an earlier change whose reading of the room was slower arrived last and left
 * the tabs with a stale count (a room of 4 shown with 3). A plain update waiting behind another
 * is not queued twice: the one waiting will read the room as it is by then.
 */
import { type Bus, roomChangesChannel } from '@voice/bus';
import type { RoomChange } from '@voice/protocol';
import type { Logger } from '../logger.ts';
import type { SocketContext, SocketLifecycle } from '../socket/handlers.ts';
import type { Notifier } from '../socket/Notifier.ts';
import type { RoomMembership } from './RoomMembership.ts';
import type { RoomRepository } from './RoomRepository.ts';
import type { RoomService } from './RoomService.ts';

export interface RoomWatcherDeps {
  bus: Bus;
  rooms: RoomService;
  repository: RoomRepository;
  membership: RoomMembership;
  notifier: Notifier;
  logger: Logger;
}

/** A watching tab. */
interface Tab {
  userId: string;
  connectionId: string;
}

export class RoomWatchers implements SocketLifecycle {
  /** Watching tabs here, by connection id. */
  readonly #tabs = new Map<string, Tab>();
  readonly #deps: RoomWatcherDeps;
  /** Rooms whose changes are being told, with the changes waiting their turn. */
  readonly #waiting = new Map<string, RoomChange[]>();
  #unsubscribe: (() => Promise<void>) | null = null;

  static async create(deps: RoomWatcherDeps): Promise<RoomWatchers> {
    const watchers = new RoomWatchers(deps);
    watchers.#unsubscribe = await deps.bus.subscribe(roomChangesChannel, (change) =>
      watchers.#enqueue(change),
    );
    // Announced by the one process that stored the change first (RoomMembership).
    deps.membership.onChange((roomId) => deps.bus.publish(roomChangesChannel, { type: 'updated', roomId }));
    return watchers;
  }

  private constructor(deps: RoomWatcherDeps) {
    this.#deps = deps;
  }

  /** The tab hears of room changes from now on (asking twice changes nothing). */
  watch({ userId, connectionId }: SocketContext): void {
    this.#tabs.set(connectionId, { userId, connectionId });
  }

  unwatch({ connectionId }: SocketContext): void {
    this.#tabs.delete(connectionId);
  }

  connectionClosed(ctx: SocketContext): void {
    this.unwatch(ctx);
  }

  async close(): Promise<void> {
    this.#tabs.clear();
    await this.#unsubscribe?.();
  }

  /** Tells `change` once the room's earlier changes are told. */
  #enqueue(change: RoomChange): void {
    const waiting = this.#waiting.get(change.roomId);
    if (!waiting) {
      this.#waiting.set(change.roomId, []);
      void this.#tellInTurn(change);
      return;
    }
    const last = waiting.at(-1);
    if (!(plainUpdate(change) && last && plainUpdate(last))) waiting.push(change);
  }

  async #tellInTurn(first: RoomChange): Promise<void> {
    const waiting = this.#waiting.get(first.roomId) ?? [];
    for (let change: RoomChange | undefined = first; change; change = waiting.shift()) {
      await this.#tell(change).catch((error: unknown) =>
        this.#deps.logger.warn('room change not delivered', { error }),
      );
    }
    this.#waiting.delete(first.roomId);
  }

  async #tell(change: RoomChange): Promise<void> {
    const tabs = [...this.#tabs.values()];
    if (tabs.length === 0) return;
    const { roomId } = change;
    const { notifier } = this.#deps;
    if (change.type === 'removed') {
      const viewers = change.viewers && new Set(change.viewers);
      const told = viewers ? tabs.filter((tab) => viewers.has(tab.userId)) : tabs;
      await notifier.notifyConnections(told, 'room-removed', { roomId });
      return;
    }
    const userIds = [...new Set(tabs.map((tab) => tab.userId))];
    const [room, viewers] = await Promise.all([
      this.#deps.rooms.present(roomId),
      this.#deps.repository.viewersAmong(roomId, userIds),
    ]);
    // Deleted meanwhile: its removal has its own message.
    if (!room) return;
    await notifier.notifyConnections(
      tabs.filter((tab) => viewers.has(tab.userId)),
      'room-updated',
      { room },
    );
    // It just became private: those who may not see it drop it.
    if (change.wasPublic)
      await notifier.notifyConnections(
        tabs.filter((tab) => !viewers.has(tab.userId)),
        'room-removed',
        { roomId },
      );
  }
}

/** Created or changed, not made private: what a later reading of the room tells as well. */
function plainUpdate(change: RoomChange): boolean {
  return change.type === 'updated' && !change.wasPublic;
}
