/**
 * Which media server hosts each room, so every member of a room reaches the same one
 * (RedisPlacementStore with REDIS_URL, this memory store for a single process).
 */

export interface PlacementStore {
  /** The id of the media server the room was placed on, if any. */
  get(roomId: string): Promise<string | null>;
  /**
   * Places the room on `serverId` if it has no placement or it is still `previous`, in one
   * step; answers the server the room is on now, so of two processes placing it at once the
   * second takes the first one's choice.
   */
  claim(roomId: string, serverId: string, previous: string | null): Promise<string>;
  remove(roomId: string): Promise<void>;
}

/** A single process: placements in its own memory. */
export class MemoryPlacementStore implements PlacementStore {
  readonly #servers = new Map<string, string>();

  async get(roomId: string): Promise<string | null> {
    return this.#servers.get(roomId) ?? null;
  }

  async claim(roomId: string, serverId: string, previous: string | null): Promise<string> {
    const current = this.#servers.get(roomId);
    if (current !== undefined && current !== previous) return current;
    this.#servers.set(roomId, serverId);
    return serverId;
  }

  async remove(roomId: string): Promise<void> {
    this.#servers.delete(roomId);
  }
}
