/** Routes of SPEC section 2. Uncaught errors reach react-router's default error page. */
import { createBrowserRouter, Navigate, Outlet } from 'react-router-dom';
import { ForgotPasswordPage } from '../features/auth/ForgotPasswordPage.tsx';
import { LoginPage } from '../features/auth/LoginPage.tsx';
import { RegisterPage } from '../features/auth/RegisterPage.tsx';
import { ResetPasswordPage } from '../features/auth/ResetPasswordPage.tsx';
import { DashboardPage } from '../features/dashboard/DashboardPage.tsx';
import { OnboardingPage } from '../features/onboarding/OnboardingPage.tsx';
import { LanguageProvider } from '../i18n/LanguageProvider.tsx';
import { PATHS, RequireAuth, RootRedirect, VisitorOnly } from '../session/guards.tsx';
import { withChunkTimeout } from './lazyPage.ts';

// The language test pages are for support and QA: their code loads only when visited.
const languageTestPage = (smart: boolean) => async () => {
  const { LanguageTestPage } = await withChunkTimeout(
    import('../features/languageTest/LanguageTestPage.tsx'),
  );
  return { element: <LanguageTestPage smart={smart} /> };
};

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
        { path: PATHS.languageTest, lazy: languageTestPage(false) },
        { path: PATHS.smartLanguageTest, lazy: languageTestPage(true) },
        { path: '*', element: <Navigate to={PATHS.root} replace /> },
      ],
    },
  ]);
}

export type AppRouter = ReturnType<typeof createAppRouter>;
