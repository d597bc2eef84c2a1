/** Profiles and accounts (/api/users/profile, /avatar, /:id, /me). */
import type { AvatarService } from '../avatars/AvatarService.ts';
import type { Infrastructure } from '../wiring.ts';
import { AccountService, type AccountServiceDeps } from './AccountService.ts';
import { ProfileService } from './ProfileService.ts';
import { type UserRoutesDeps, userRoutes } from './routes.ts';
import type { UserRepository } from './UserRepository.ts';

export interface UserWiring {
  users: UserRepository;
  /** The people who knew a person (friends/FriendRepository.ts). */
  friendships: AccountServiceDeps['friends'];
  avatars: AvatarService;
  /** Presents other users with their live presence (friends/FriendService.ts). */
  friends: UserRoutesDeps['friends'];
  /** Told of a removed account, so that no process trusts a cached session of it. */
  onRemoved: (userId: string) => Promise<void>;
}

export function wireUsers(
  { db, notifier, limiter, requireAuth, logger }: Infrastructure,
  { users, friendships, avatars, friends, onRemoved }: UserWiring,
) {
  const profiles = new ProfileService(users, avatars, {
    logger,
    // A new display name reaches friends' lists and the person's other tabs like an avatar does.
    onDisplayNameChanged: async (userId, displayName) => {
      const friendIds = await friendships.friendIds(userId);
      await notifier.notifyMany([userId, ...friendIds], 'profile-updated', {
        userId,
        display_name: displayName,
      });
    },
  });
  const accounts = new AccountService({
    db,
    users,
    friends: friendships,
    notifier,
    avatars,
    logger,
    onRemoved,
  });
  const routes = userRoutes({ users, profiles, accounts, avatars, friends, limiter, requireAuth });
  return { routes: [routes.routes()] };
}
