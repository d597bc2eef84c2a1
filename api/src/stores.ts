/**
 * What every API process must share: in Redis when REDIS_URL is set, so that two processes on
 * one Redis behave as one service; in this process's memory otherwise. The choice is made here,
 * once, and the features take the stores without knowing which kind they got.
 */
import {
  type Bus,
  MemoryBus,
  ObservedBus,
  RedisBus,
  type RedisLink,
  RedisUnavailableError,
} from '@voice/bus';
import { RedisSpentRoomTokens, type SpentRoomTokens } from '@voice/media-server';
import { type CallStore, MemoryCallStore } from './calls/CallStore.ts';
import { RedisCallStore } from './calls/RedisCallStore.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { AppMetrics } from './metrics/AppMetrics.ts';
import { MemoryPresenceStore, type PresenceStore } from './presence/PresenceStore.ts';
import { RedisPresenceStore } from './presence/RedisPresenceStore.ts';
import { type BanStore, MemoryBanStore } from './rooms/BanStore.ts';
import { type MemberStore, MemoryMemberStore } from './rooms/MemberStore.ts';
import { MemoryPlacementStore, type PlacementStore } from './rooms/PlacementStore.ts';
import { RedisBanStore } from './rooms/RedisBanStore.ts';
import { RedisMemberStore } from './rooms/RedisMemberStore.ts';
import { RedisPlacementStore } from './rooms/RedisPlacementStore.ts';
import { RedisTicketStore } from './socket/RedisTicketStore.ts';
import { LocalSocketRegistry, RedisSocketRegistry, type SocketRegistry } from './socket/SocketRegistry.ts';
import { FallbackTicketStore, MemoryTicketStore, type TicketStore } from './socket/TicketStore.ts';

/** The shared state of the service, each part in Redis or in memory. */
export interface Stores {
  /** Event fan-out between processes (and, in memory, within this one). */
  bus: Bus;
  /** Who is online, and on which process. */
  presence: PresenceStore;
  /** This process's id in the presence heartbeat ('local' without Redis). */
  nodeId: string;
  /** The subset of processes whose heartbeat is current; absent when one process is alone. */
  nodesAlive?: (nodeIds: string[]) => Promise<Set<string> | null>;
  /** Ringing and answered 1:1 calls. */
  calls: CallStore;
  /** Every process's app sockets, so the per-person cap holds for the whole service. */
  sockets: SocketRegistry;
  /** Socket tickets waiting for their one handshake, which any process may take. */
  tickets: TicketStore;
  /** Who is in which group room, as the media servers report it. */
  members: MemberStore;
  /** Which media server hosts which room. */
  placements: PlacementStore;
  /** Who was removed from which room, for 5 minutes. */
  bans: BanStore;
  /** Room tokens the embedded media server spent, kept past a restart; absent without Redis. */
  spentRoomTokens?: SpentRoomTokens;
}

/** Opens the stores on `link` (every Redis call with a deadline and a degraded answer), or in memory without one. */
export async function openStores(
  config: Readonly<Config>,
  link: RedisLink | null,
  { logger, metrics }: { logger: Logger; metrics: AppMetrics },
): Promise<Stores> {
  const prefix = config.redisPrefix;
  if (!link) {
    return {
      bus: new ObservedBus(new MemoryBus(logger), metrics.bus),
      presence: new MemoryPresenceStore(),
      nodeId: 'local',
      calls: new MemoryCallStore(),
      sockets: new LocalSocketRegistry(),
      tickets: new MemoryTicketStore(),
      members: new MemoryMemberStore(),
      placements: new MemoryPlacementStore(),
      bans: new MemoryBanStore(),
    };
  }
  const bus = new ObservedBus(await RedisBus.create(link, `${prefix}bus:`, logger), metrics.bus);
  const presence = await RedisPresenceStore.create(link, { prefix, logger });
  return {
    bus,
    presence,
    // The presence heartbeat says which process is alive.
    nodeId: presence.nodeId,
    nodesAlive: (ids) => presence.nodesAlive(ids),
    calls: new RedisCallStore(link, { prefix, ringTimeoutMs: config.callRingTimeoutMs }),
    sockets: new RedisSocketRegistry(link, prefix, logger),
    tickets: new FallbackTicketStore(
      new RedisTicketStore(link, prefix),
      new MemoryTicketStore(),
      (error) => error instanceof RedisUnavailableError,
    ),
    members: new RedisMemberStore(link, prefix),
    placements: new RedisPlacementStore(link, prefix),
    bans: new RedisBanStore(link, prefix),
    spentRoomTokens: new RedisSpentRoomTokens(link, prefix),
  };
}
