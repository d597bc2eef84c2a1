/** Friend requests, friendships and search (/api/users/friends..., `accept-friend-request`). */
import type { UserRepository } from '../users/UserRepository.ts';
import type { Infrastructure } from '../wiring.ts';
import type { FriendRepository } from './FriendRepository.ts';
import { type FriendRoomSource, FriendService } from './FriendService.ts';
import { friendRoutes } from './routes.ts';
import { friendSocketHandlers } from './socketHandlers.ts';

export function wireFriends(
  { db, stores, notifier, limiter, requireAuth }: Infrastructure,
  {
    users,
    friendships,
    rooms,
  }: { users: UserRepository; friendships: FriendRepository; rooms: FriendRoomSource },
) {
  const friends = new FriendService({
    db,
    friends: friendships,
    users,
    presence: stores.presence,
    notifier,
    rooms,
  });
  return {
    friends,
    routes: [friendRoutes(friends, limiter, requireAuth).routes()],
    socketHandlers: friendSocketHandlers(friends),
  };
}
