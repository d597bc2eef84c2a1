/** Route guards for SPEC section 2's access column, and the onboarding detour of new accounts. */
import type { User } from '@voice/protocol';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { useLiveProfile } from './useLiveProfile.ts';
import { useSession } from './useSession.ts';

export const PATHS = {
  root: '/',
  login: '/login',
  register: '/register',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  dashboard: '/dashboard',
  onboarding: '/onboarding',
  languageTest: '/language-test',
  smartLanguageTest: '/smart-language-test',
  terms: '/terms',
  privacy: '/privacy',
} as const;

/** Pages only for visitors: a signed-in user goes to the dashboard. */
export const VISITOR_PATHS: readonly string[] = [
  PATHS.login,
  PATHS.register,
  PATHS.forgotPassword,
  PATHS.resetPassword,
];

/** True for an account that has not finished onboarding yet. */
export function needsOnboarding(user: User | null): boolean {
  return user?.onboarding_completed === false;
}

/** Where a signed-in user belongs: onboarding until it is done, then the dashboard. */
export function homePath(user: User | null): string {
  return needsOnboarding(user) ? PATHS.onboarding : PATHS.dashboard;
}

export function RequireAuth() {
  const { status, user } = useSession();
  const { pathname } = useLocation();
  useLiveProfile();
  if (status !== 'authenticated') return <Navigate to={PATHS.login} replace />;
  if (needsOnboarding(user) && pathname !== PATHS.onboarding) {
    return <Navigate to={PATHS.onboarding} replace />;
  }
  return <Outlet />;
}

export function VisitorOnly() {
  const { status, user } = useSession();
  return status === 'authenticated' ? <Navigate to={homePath(user)} replace /> : <Outlet />;
}

export function RootRedirect() {
  const { status, user } = useSession();
  return <Navigate to={status === 'authenticated' ? homePath(user) : PATHS.login} replace />;
}
