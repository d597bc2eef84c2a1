/**
 * Group rooms (/api/rooms, the room list on the app socket): placed on the media servers
 * announced on the bus, with who is in them as those servers report it.
 */
import type { FriendRepository } from '../friends/FriendRepository.ts';
import { MediaServers } from '../mediaServers/MediaServers.ts';
import type { UserRepository } from '../users/UserRepository.ts';
import type { Infrastructure } from '../wiring.ts';
import { FriendRooms } from './FriendRooms.ts';
import { RoomBans } from './RoomBans.ts';
import { RoomMembership } from './RoomMembership.ts';
import { RoomPlacements } from './RoomPlacements.ts';
import { RoomRepository } from './RoomRepository.ts';
import { RoomService } from './RoomService.ts';
import { RoomWatchers } from './RoomWatchers.ts';
import { mediaSecretKey, RoomTokens } from './roomToken.ts';
import { roomRoutes } from './routes.ts';
import { roomSocketHandlers } from './socketHandlers.ts';

export async function wireRooms(
  { config, db, stores, notifier, limiter, requireAuth, logger }: Infrastructure,
  { users, friendships }: { users: UserRepository; friendships: FriendRepository },
) {
  const { bus } = stores;
  const mediaServers = await MediaServers.create(bus, logger);
  const membership = await RoomMembership.create(bus, stores.members, mediaServers, logger);
  const repository = new RoomRepository(db);
  const bans = await RoomBans.create(bus, stores.bans, repository, logger);
  const rooms = new RoomService({
    rooms: repository,
    users,
    friends: friendships,
    membership,
    // A room stays on the server that announces it, whatever Redis lost (RoomMembership).
    placements: new RoomPlacements(stores.placements, mediaServers, membership),
    tokens: new RoomTokens(mediaSecretKey(config)),
    bans,
    limiter,
    notifier,
    bus,
    logger,
  });
  const watchers = await RoomWatchers.create({ bus, rooms, repository, membership, notifier, logger });
  return {
    mediaServers,
    membership,
    rooms,
    /** The rooms friends are in, for the friends list. */
    friendRooms: new FriendRooms({ membership, rooms: repository, friends: friendships, notifier }),
    routes: [roomRoutes(rooms, limiter, requireAuth).routes()],
    socketHandlers: roomSocketHandlers(rooms, watchers, limiter),
    socketLifecycle: [watchers],
    async close() {
      await watchers.close();
      await bans.close();
      await membership.close();
      await mediaServers.close();
    },
  };
}
