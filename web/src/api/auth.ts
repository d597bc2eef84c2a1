/** The account endpoints (SPEC section 7, /auth/*). */
import {
  type AuthResponse,
  type CheckUsernameResponse,
  type ForgotPasswordResponse,
  type LoginRequest,
  type MeResponse,
  type RegisterRequest,
  type ResetPasswordRequest,
  type ResetPasswordResponse,
  ROUTES,
  type VerifyResetTokenResponse,
} from '@voice/protocol';
import { apiRequest } from './client.ts';

export const authApi = {
  register: (body: RegisterRequest) => apiRequest<AuthResponse>(ROUTES.register, { method: 'POST', body }),
  login: (body: LoginRequest) => apiRequest<AuthResponse>(ROUTES.login, { method: 'POST', body }),
  me: (signal?: AbortSignal) => apiRequest<MeResponse>(ROUTES.me, signal ? { signal } : {}),
  logout: () => apiRequest<void>(ROUTES.logout, { method: 'POST' }),
  checkUsername: (username: string, signal?: AbortSignal) =>
    apiRequest<CheckUsernameResponse>(ROUTES.checkUsername, {
      method: 'POST',
      body: { username },
      ...(signal ? { signal } : {}),
    }),
  forgotPassword: (email: string) =>
    apiRequest<ForgotPasswordResponse>(ROUTES.forgotPassword, { method: 'POST', body: { email } }),
  verifyResetToken: (token: string) => apiRequest<VerifyResetTokenResponse>(ROUTES.verifyResetToken(token)),
  resetPassword: (body: ResetPasswordRequest) =>
    apiRequest<ResetPasswordResponse>(ROUTES.resetPassword, { method: 'POST', body }),
};
