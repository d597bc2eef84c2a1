/** Routes of SPEC section 2. Uncaught errors reach react-router's default error page. */
import { createBrowserRouter, Navigate } from 'react-router-dom';
import { ForgotPasswordPage } from '../features/auth/ForgotPasswordPage.tsx';
import { LoginPage } from '../features/auth/LoginPage.tsx';
import { RegisterPage } from '../features/auth/RegisterPage.tsx';
import { ResetPasswordPage } from '../features/auth/ResetPasswordPage.tsx';
import { DashboardPage } from '../features/dashboard/DashboardPage.tsx';
import { PATHS, RequireAuth, RootRedirect, VisitorOnly } from '../session/guards.tsx';

export function createAppRouter() {
  return createBrowserRouter([
    { path: PATHS.root, element: <RootRedirect /> },
    {
      element: <VisitorOnly />,
      children: [
        { path: PATHS.login, element: <LoginPage /> },
        { path: PATHS.register, element: <RegisterPage /> },
        { path: PATHS.forgotPassword, element: <ForgotPasswordPage /> },
        { path: PATHS.resetPassword, element: <ResetPasswordPage /> },
      ],
    },
    {
      element: <RequireAuth />,
      children: [{ path: PATHS.dashboard, element: <DashboardPage /> }],
    },
    { path: '*', element: <Navigate to={PATHS.root} replace /> },
  ]);
}

export type AppRouter = ReturnType<typeof createAppRouter>;
