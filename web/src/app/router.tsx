/** Routes of SPEC section 2. Uncaught errors reach react-router's default error page. */
import { createBrowserRouter, Navigate, Outlet } from 'react-router-dom';
import { ForgotPasswordPage } from '../features/auth/ForgotPasswordPage.tsx';
import { LoginPage } from '../features/auth/LoginPage.tsx';
import { RegisterPage } from '../features/auth/RegisterPage.tsx';
import { ResetPasswordPage } from '../features/auth/ResetPasswordPage.tsx';
import { DashboardPage } from '../features/dashboard/DashboardPage.tsx';
import { LanguageTestPage } from '../features/languageTest/LanguageTestPage.tsx';
import { OnboardingPage } from '../features/onboarding/OnboardingPage.tsx';
import { LanguageProvider } from '../i18n/LanguageProvider.tsx';
import { PATHS, RequireAuth, RootRedirect, VisitorOnly } from '../session/guards.tsx';

export function createAppRouter() {
  return createBrowserRouter([
    {
      // Every page waits for the start-up language, which needs the restored session.
      element: (
        <LanguageProvider>
          <Outlet />
        </LanguageProvider>
      ),
      children: [
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
          children: [
            { path: PATHS.dashboard, element: <DashboardPage /> },
            { path: PATHS.onboarding, element: <OnboardingPage /> },
          ],
        },
        { path: PATHS.languageTest, element: <LanguageTestPage /> },
        { path: PATHS.smartLanguageTest, element: <LanguageTestPage smart /> },
        { path: '*', element: <Navigate to={PATHS.root} replace /> },
      ],
    },
  ]);
}

export type AppRouter = ReturnType<typeof createAppRouter>;
