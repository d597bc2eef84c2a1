/**
 * /api/users profile routes: PUT /profile, POST /avatar (multipart), GET /:id.
 * Each route is auth → rate limit → validate → handler.
 */
import Router from '@koa/router';
import type { UploadAvatarResponse, UserResponse } from '@voice/protocol';
import type { Middleware } from 'koa';
import type { AvatarService } from '../avatars/AvatarService.ts';
import { avatarUpload, type UploadState } from '../avatars/upload.ts';
import { AppError } from '../errors.ts';
import type { FriendService } from '../friends/FriendService.ts';
import type { AuthState } from '../http/authenticate.ts';
import type { Limit, RateLimiter } from '../http/RateLimiter.ts';
import { validate } from '../http/validate.ts';
import type { ProfileService } from './ProfileService.ts';
import { presentUser } from './presenter.ts';
import { updateProfileSchema, userIdSchema } from './schema.ts';
import type { UserRepository } from './UserRepository.ts';

const MINUTE = 60_000;

/** Per-account limits of these routes; an upload costs real CPU, so it gets the tightest. */
export const PROFILE_LIMITS = {
  profilePerUser: { name: 'profile-user', max: 60, windowMs: MINUTE },
  avatarPerUser: { name: 'avatar-user', max: 20, windowMs: 10 * MINUTE },
} as const satisfies Record<string, Limit>;

// Whoever is making the request is online, as in /auth/me.
const ONLINE = { isOnline: true, isInCall: false };

export interface UserRoutesDeps {
  users: UserRepository;
  profiles: ProfileService;
  avatars: AvatarService;
  /** Presents other users with their live presence. */
  friends: Pick<FriendService, 'present'>;
  limiter: RateLimiter;
  requireAuth: Middleware<AuthState>;
}

/**
 * Mount AFTER any router with fixed paths under /users (search, friends, ...):
 * `GET /users/:id` would otherwise take them and refuse them as malformed ids.
 */
export function userRoutes({ users, profiles, avatars, friends, limiter, requireAuth }: UserRoutesDeps) {
  const router = new Router<AuthState & UploadState>({ prefix: '/users' });
  const limit =
    (which: Limit): Middleware<AuthState> =>
    async (ctx, next) => {
      await limiter.consume(which, ctx.state.user.id);
      await next();
    };

  router.put('/profile', requireAuth, limit(PROFILE_LIMITS.profilePerUser), async (ctx) => {
    const update = validate(updateProfileSchema, ctx.request.body);
    const row = await profiles.update(ctx.state.user.id, update);
    ctx.body = { user: presentUser(row, { self: true, presence: ONLINE }) } satisfies UserResponse;
  });

  // Authenticated and counted before the body is read: nobody else makes us store a temp file.
  router.post(
    '/avatar',
    requireAuth,
    limit(PROFILE_LIMITS.avatarPerUser),
    avatarUpload(avatars.tmpDir),
    async (ctx) => {
      const avatarUrl = await avatars.upload(ctx.state.user.id, ctx.state.upload);
      ctx.body = { avatar_url: avatarUrl } satisfies UploadAvatarResponse;
    },
  );

  router.get('/:id', requireAuth, async (ctx) => {
    const { id } = validate(userIdSchema, ctx.params);
    const row = await users.findById(id);
    const [user] = row ? await friends.present([row]) : [];
    if (!user) throw new AppError('USER_NOT_FOUND');
    ctx.body = { user } satisfies UserResponse;
  });

  return router;
}
