/**
 * /api/users profile routes: PUT /profile, POST /avatar (multipart), GET /:id, DELETE /me.
 * Each route is auth → rate limit → validate → handler.
 */
import Router from '@koa/router';
import { PROFILE_ROUTES, type UploadAvatarResponse, type User, type UserResponse } from '@voice/protocol';
import type { Middleware } from 'koa';
import type { AvatarService } from '../avatars/AvatarService.ts';
import { avatarUpload, type UploadState } from '../avatars/upload.ts';
import { AppError } from '../errors.ts';
import { LIMITS, type Limit, perUserLimit, type RateLimiter } from '../http/RateLimiter.ts';
import type { AuthState } from '../http/requireAuth.ts';
import { idParamsSchema } from '../http/schemas.ts';
import { validate } from '../http/validate.ts';
import type { AccountService } from './AccountService.ts';
import { removeAccountSchema } from './accountSchema.ts';
import type { ProfileService } from './ProfileService.ts';
import { presentUser } from './presenter.ts';
import { updateProfileSchema } from './schema.ts';
import type { UserRepository, UserRow } from './UserRepository.ts';

// Whoever is making the request is online, as in /auth/me.
const ONLINE = { isOnline: true, isInCall: false };

export interface UserRoutesDeps {
  users: UserRepository;
  profiles: ProfileService;
  accounts: AccountService;
  avatars: AvatarService;
  /** Presents other users with their live presence (friends/FriendService.ts). */
  friends: { present(rows: UserRow[]): Promise<User[]> };
  limiter: RateLimiter;
  requireAuth: Middleware<AuthState>;
}

/**
 * Mount AFTER any router with fixed paths under /users (search, friends, ...):
 * `GET /users/:id` would otherwise take them and refuse them as malformed ids.
 */
export function userRoutes({
  users,
  profiles,
  accounts,
  avatars,
  friends,
  limiter,
  requireAuth,
}: UserRoutesDeps) {
  const router = new Router<AuthState & UploadState>();
  const limit = (which: Limit) => perUserLimit(limiter, which);

  router.put(PROFILE_ROUTES.profile, requireAuth, limit(LIMITS.profilePerUser), async (ctx) => {
    const update = validate(updateProfileSchema, ctx.request.body);
    const row = await profiles.update(ctx.state.user.id, update);
    ctx.body = { user: presentUser(row, { self: true, presence: ONLINE }) } satisfies UserResponse;
  });

  // Authenticated and counted before the body is read: nobody else makes us store a temp file.
  router.post(
    PROFILE_ROUTES.avatar,
    requireAuth,
    limit(LIMITS.avatarPerUser),
    avatarUpload(avatars.tmpDir),
    async (ctx) => {
      const avatarUrl = await avatars.upload(ctx.state.user.id, ctx.state.upload);
      ctx.body = { avatar_url: avatarUrl } satisfies UploadAvatarResponse;
    },
  );

  // Deletes the account, confirmed with its password; every session and socket of it ends.
  router.delete(
    PROFILE_ROUTES.removeAccount,
    requireAuth,
    limit(LIMITS.removeAccountPerUser),
    async (ctx) => {
      const { password } = validate(removeAccountSchema, ctx.request.body);
      await accounts.remove(ctx.state.user.id, password);
      ctx.status = 204;
    },
  );

  router.get(PROFILE_ROUTES.user.pattern, requireAuth, async (ctx) => {
    const { id } = validate(idParamsSchema, ctx.params);
    const row = await users.findById(id);
    const [user] = row ? await friends.present([row]) : [];
    if (!user) throw new AppError('USER_NOT_FOUND');
    ctx.body = { user } satisfies UserResponse;
  });

  return router;
}
