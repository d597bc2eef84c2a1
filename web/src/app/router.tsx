/** Routes of SPEC section 2. Uncaught errors reach react-router's default error page. */
import type { LegalDocument } from '@voice/protocol';
import { createBrowserRouter, Navigate, Outlet } from 'react-router-dom';
import { ForgotPasswordPage } from '../features/auth/ForgotPasswordPage.tsx';
import { LoginPage } from '../features/auth/LoginPage.tsx';
import { RegisterPage } from '../features/auth/RegisterPage.tsx';
import { ResetPasswordPage } from '../features/auth/ResetPasswordPage.tsx';
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

// The signed-in pages (the dashboard with its friends, profile and socket views; onboarding)
// are most of the app's code: the sign-in page, the first a visitor sees, does not wait for them.
const dashboardPage = async () => {
  const { DashboardPage } = await withChunkTimeout(import('../features/dashboard/DashboardPage.tsx'));
  return { element: <DashboardPage /> };
};
const onboardingPage = async () => {
  const { OnboardingPage } = await withChunkTimeout(import('../features/onboarding/OnboardingPage.tsx'));
  return { element: <OnboardingPage /> };
};

// The terms and privacy pages are read rarely: their code too loads only when visited.
const legalPage = (document: LegalDocument) => async () => {
  const { LegalPage } = await withChunkTimeout(import('../features/legal/LegalPage.tsx'));
  return { element: <LegalPage document={document} /> };
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
            { path: PATHS.dashboard, lazy: dashboardPage },
            { path: PATHS.onboarding, lazy: onboardingPage },
          ],
        },
        { path: PATHS.languageTest, lazy: languageTestPage(false) },
        { path: PATHS.smartLanguageTest, lazy: languageTestPage(true) },
        // Open to everyone: the sign-up form links here, and signed-in users may read them too.
        { path: PATHS.terms, lazy: legalPage('terms') },
        { path: PATHS.privacy, lazy: legalPage('privacy') },
        { path: '*', element: <Navigate to={PATHS.root} replace /> },
      ],
    },
  ]);
}

export type AppRouter = ReturnType<typeof createAppRouter>;
