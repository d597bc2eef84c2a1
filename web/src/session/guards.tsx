/** Route guards for SPEC section 2's access column. */
import { Navigate, Outlet } from 'react-router-dom';
import { useSession } from './useSession.ts';

export const PATHS = {
  root: '/',
  login: '/login',
  register: '/register',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  dashboard: '/dashboard',
} as const;

/** Pages only for visitors: a signed-in user goes to the dashboard. */
export const VISITOR_PATHS: readonly string[] = [
  PATHS.login,
  PATHS.register,
  PATHS.forgotPassword,
  PATHS.resetPassword,
];

export function RequireAuth() {
  const { status } = useSession();
  return status === 'authenticated' ? <Outlet /> : <Navigate to={PATHS.login} replace />;
}

export function VisitorOnly() {
  const { status } = useSession();
  return status === 'authenticated' ? <Navigate to={PATHS.dashboard} replace /> : <Outlet />;
}

export function RootRedirect() {
  const { status } = useSession();
  return <Navigate to={status === 'authenticated' ? PATHS.dashboard : PATHS.login} replace />;
}
