/** /api/auth/*: each route is rate limit → validate → handler. */

import Router from '@koa/router';
import type {
  AuthResponse,
  CheckUsernameResponse,
  ForgotPasswordResponse,
  MeResponse,
  ResetPasswordResponse,
  VerifyResetTokenResponse,
} from '@voice/protocol';
import type { Middleware } from 'koa';
import { AppError } from '../errors.ts';
import type { AuthState } from '../http/authenticate.ts';
import { LIMITS, type RateLimiter } from '../http/RateLimiter.ts';
import { validate } from '../http/validate.ts';
import { presentUser } from '../users/presenter.ts';
import type { AuthService } from './AuthService.ts';
import {
  checkUsernameSchema,
  forgotPasswordSchema,
  loginSchema,
  registerSchema,
  resetPasswordSchema,
  resetTokenSchema,
} from './schema.ts';

const ONLINE = { isOnline: true, isInCall: false };

export function authRoutes(auth: AuthService, limiter: RateLimiter, requireAuth: Middleware<AuthState>) {
  const router = new Router<AuthState>({ prefix: '/auth' });

  router.post('/register', async (ctx) => {
    await limiter.consume(LIMITS.registerPerIp, ctx.ip);
    const input = validate(registerSchema, ctx.request.body);
    if (!input.acceptTerms) throw new AppError('TERMS_NOT_ACCEPTED', 'acceptTerms');
    const { token, user } = await auth.register(input);
    ctx.status = 201;
    ctx.body = { token, user: presentUser(user, { self: true, presence: ONLINE }) } satisfies AuthResponse;
  });

  router.post('/login', async (ctx) => {
    await limiter.consume(LIMITS.loginPerIp, ctx.ip);
    const { username, password } = validate(loginSchema, ctx.request.body);
    const account = username.trim().toLowerCase();
    // A locked account stays locked even for the right password, or guessing would go on.
    await limiter.check(LIMITS.loginFailuresPerAccount, account);
    try {
      const { token, user } = await auth.login(username.trim(), password);
      await limiter.reset(LIMITS.loginFailuresPerAccount, account);
      ctx.body = { token, user: presentUser(user, { self: true, presence: ONLINE }) } satisfies AuthResponse;
    } catch (error) {
      if (error instanceof AppError && error.code === 'INVALID_CREDENTIALS') {
        await limiter.consume(LIMITS.loginFailuresPerAccount, account);
      }
      throw error;
    }
  });

  router.get('/me', requireAuth, (ctx) => {
    ctx.body = { user: presentUser(ctx.state.user, { self: true, presence: ONLINE }) } satisfies MeResponse;
  });

  router.post('/logout', requireAuth, async (ctx) => {
    await auth.logout(ctx.state.user.id, ctx.state.sessionId);
    ctx.status = 204;
  });

  router.post('/check-username', async (ctx) => {
    await limiter.consume(LIMITS.checkUsernamePerIp, ctx.ip);
    const { username } = validate(checkUsernameSchema, ctx.request.body);
    ctx.body = (await auth.checkUsername(username)) satisfies CheckUsernameResponse;
  });

  router.post('/forgot-password', async (ctx) => {
    await limiter.consume(LIMITS.forgotPasswordPerIp, ctx.ip);
    const { email } = validate(forgotPasswordSchema, ctx.request.body);
    await limiter.consume(LIMITS.forgotPasswordPerAccount, email.toLowerCase());
    await auth.forgotPassword(email);
    ctx.body = { ok: true } satisfies ForgotPasswordResponse;
  });

  router.get('/verify-reset-token/:token', async (ctx) => {
    await limiter.consume(LIMITS.resetPasswordPerIp, ctx.ip);
    const token = ctx.params.token ?? '';
    if (!resetTokenSchema.safeParse(token).success || !(await auth.verifyResetToken(token))) {
      throw new AppError('RESET_TOKEN_INVALID', 'token');
    }
    ctx.body = { valid: true } satisfies VerifyResetTokenResponse;
  });

  router.post('/reset-password', async (ctx) => {
    await limiter.consume(LIMITS.resetPasswordPerIp, ctx.ip);
    const { token, password, confirmPassword } = validate(resetPasswordSchema, ctx.request.body);
    if (password !== confirmPassword) throw new AppError('PASSWORDS_DO_NOT_MATCH', 'confirmPassword');
    if (!resetTokenSchema.safeParse(token).success) throw new AppError('RESET_TOKEN_INVALID', 'token');
    await auth.resetPassword(token, password);
    ctx.body = { ok: true } satisfies ResetPasswordResponse;
  });

  return router;
}
