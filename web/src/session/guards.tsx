/** Route guards for SPEC section 2's access column, and the onboarding detour of new accounts. */
import type { User } from '@voice/protocol';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { loginPathBackTo, nextPathFrom, PATHS } from './paths.ts';
import { useSession } from './useSession.ts';

export { PATHS, roomPath, VISITOR_PATHS } from './paths.ts';

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
  const { pathname, search } = useLocation();
  if (status !== 'authenticated') return <Navigate to={loginPathBackTo(`${pathname}${search}`)} replace />;
  if (needsOnboarding(user) && pathname !== PATHS.onboarding) {
    return <Navigate to={PATHS.onboarding} replace />;
  }
  return <Outlet />;
}

export function VisitorOnly() {
  const { status, user } = useSession();
  const { search } = useLocation();
  if (status !== 'authenticated') return <Outlet />;
  const next = needsOnboarding(user) ? null : nextPathFrom(search);
  return <Navigate to={next ?? homePath(user)} replace />;
}

export function RootRedirect() {
  const { status, user } = useSession();
  return <Navigate to={status === 'authenticated' ? homePath(user) : PATHS.login} replace />;
}
