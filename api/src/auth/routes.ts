/** /api/auth/*: each route is rate limit → validate → handler. */

import Router from '@koa/router';
import {
  type AuthResponse,
  type CheckUsernameResponse,
  type ForgotPasswordResponse,
  type MeResponse,
  type ResetPasswordResponse,
  ROUTES,
  type VerifyResetTokenResponse,
} from '@voice/protocol';
import { AppError } from '../errors.ts';
import { addressKey, LIMITS, type RateLimiter } from '../http/RateLimiter.ts';
import { type AuthState, requireAuth } from '../http/requireAuth.ts';
import { validate } from '../http/validate.ts';
import { presentUser } from '../users/presenter.ts';
import type { UserRow } from '../users/UserRepository.ts';
import type { AuthService } from './AuthService.ts';
import { LoginGuard } from './LoginGuard.ts';
import {
  checkUsernameSchema,
  forgotPasswordSchema,
  loginSchema,
  registerSchema,
  resetPasswordSchema,
  resetTokenSchema,
} from './schema.ts';

const ONLINE = { isOnline: true, isInCall: false };

// GET /auth/me's answer, serialized once per row: the session cache hands the same row to every
// request until the person changes (a changed row is a new object).
const meAnswers = new WeakMap<UserRow, string>();
function meAnswer(user: UserRow): string {
  let answer = meAnswers.get(user);
  if (answer === undefined) {
    answer = JSON.stringify({
      user: presentUser(user, { self: true, presence: ONLINE }),
    } satisfies MeResponse);
    meAnswers.set(user, answer);
  }
  return answer;
}

export function authRoutes(auth: AuthService, limiter: RateLimiter) {
  // Its own, for /auth/me answers with the whole row of the session's person.
  const signedIn = requireAuth(auth.deps.sessions);
  const router = new Router<AuthState<UserRow>>();
  const guard = new LoginGuard(limiter, auth.deps.users);

  router.post(ROUTES.register, async (ctx) => {
    await limiter.consume(LIMITS.registerPerIp, addressKey(ctx.ip));
    const input = validate(registerSchema, ctx.request.body);
    if (!input.acceptTerms) throw new AppError('TERMS_NOT_ACCEPTED', 'acceptTerms');
    const { token, user } = await auth.register(input);
    ctx.status = 201;
    ctx.body = { token, user: presentUser(user, { self: true, presence: ONLINE }) } satisfies AuthResponse;
  });

  router.post(ROUTES.login, async (ctx) => {
    await limiter.consume(LIMITS.loginPerIp, addressKey(ctx.ip));
    const { username, password } = validate(loginSchema, ctx.request.body);
    const login = username.trim();
    const { token, user } = await guard.attempt(login, ctx.ip, () => auth.login(login, password));
    ctx.body = { token, user: presentUser(user, { self: true, presence: ONLINE }) } satisfies AuthResponse;
  });

  router.get(ROUTES.me, signedIn, (ctx) => {
    ctx.type = 'json';
    ctx.body = meAnswer(ctx.state.user);
  });

  router.post(ROUTES.logout, signedIn, async (ctx) => {
    await auth.logout(ctx.state.user.id, ctx.state.sessionId);
    ctx.status = 204;
  });

  router.post(ROUTES.checkUsername, async (ctx) => {
    await limiter.consume(LIMITS.checkUsernamePerIp, addressKey(ctx.ip));
    const { username } = validate(checkUsernameSchema, ctx.request.body);
    ctx.body = (await auth.checkUsername(username)) satisfies CheckUsernameResponse;
  });

  router.post(ROUTES.forgotPassword, async (ctx) => {
    await limiter.consume(LIMITS.forgotPasswordPerIp, addressKey(ctx.ip));
    const { email } = validate(forgotPasswordSchema, ctx.request.body);
    await limiter.consume(LIMITS.forgotPasswordPerAccount, email.toLowerCase());
    await auth.forgotPassword(email);
    ctx.body = { ok: true } satisfies ForgotPasswordResponse;
  });

  router.get(ROUTES.verifyResetToken.pattern, async (ctx) => {
    await limiter.consume(LIMITS.resetPasswordPerIp, addressKey(ctx.ip));
    const token = ctx.params.token ?? '';
    if (!resetTokenSchema.safeParse(token).success || !(await auth.verifyResetToken(token))) {
      throw new AppError('RESET_TOKEN_INVALID', 'token');
    }
    ctx.body = { valid: true } satisfies VerifyResetTokenResponse;
  });

  router.post(ROUTES.resetPassword, async (ctx) => {
    await limiter.consume(LIMITS.resetPasswordPerIp, addressKey(ctx.ip));
    const { token, password, confirmPassword } = validate(resetPasswordSchema, ctx.request.body);
    if (password !== confirmPassword) throw new AppError('PASSWORDS_DO_NOT_MATCH', 'confirmPassword');
    if (!resetTokenSchema.safeParse(token).success) throw new AppError('RESET_TOKEN_INVALID', 'token');
    await auth.resetPassword(token, password);
    ctx.body = { ok: true } satisfies ResetPasswordResponse;
  });

  return router;
}
