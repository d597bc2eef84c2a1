/**
 * Routes of SPEC section 2. Each page is its own chunk (pages.ts) behind React.lazy, with the
 * full-screen loading view while one loads; an uncaught error in a page, a chunk that could
 * not load included, shows the default error page.
 */
import { type ComponentType, lazy, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { PATHS, RequireAuth, RootRedirect, VisitorOnly } from '../session/guards.tsx';
import { FullScreenLoader } from '../ui/FullScreenLoader.tsx';
import { type ChunkLoader, PAGES, prefetchRoom, prefetchSignedIn } from './pages.ts';
import { RouteErrorBoundary } from './RouteErrorBoundary.tsx';
import { useWhenIdle } from './useWhenIdle.ts';

/**
 * React.lazy over a page's loader. A page already in (the start-up script fetched it beside
 * the app) is handed over at once: a promise would make React show the loading view for a
 * tick, and then hold it up to 300 ms before revealing the page.
 */
// biome-ignore lint/suspicious/noExplicitAny: the props of each page, as React.lazy itself types them.
function lazyPage<T extends ComponentType<any>>(loader: ChunkLoader<{ default: T }>) {
  return lazy(() => {
    const loaded = loader.loaded;
    if (!loaded) return loader();
    // React.lazy takes a module that its thenable calls back with synchronously without suspending.
    const ready = {
      // biome-ignore lint/suspicious/noThenProperty: a thenable is what React.lazy reads synchronously.
      then: (resolve: (module: { default: T }) => void) => resolve(loaded),
    };
    return ready as Promise<{ default: T }>;
  });
}

const LoginPage = lazyPage(PAGES.login);
const RegisterPage = lazyPage(PAGES.register);
const ForgotPasswordPage = lazyPage(PAGES.forgotPassword);
const ResetPasswordPage = lazyPage(PAGES.resetPassword);
const DashboardPage = lazyPage(PAGES.dashboard);
const OnboardingPage = lazyPage(PAGES.onboarding);
const RoomPage = lazyPage(PAGES.room);
const LanguageTestPage = lazyPage(PAGES.languageTest);
const LegalPage = lazyPage(PAGES.legal);

/**
 * The visitor pages; once one is on screen and the browser idle, what signing in leads to
 * loads in the background, so that the sign-in page waits for none of it and sign-in for
 * little of it.
 */
function VisitorPages() {
  useWhenIdle(prefetchSignedIn);
  return <VisitorOnly />;
}

/** The signed-in pages; once one is on screen and the browser idle, a room's screen loads too. */
function SignedInPages() {
  useWhenIdle(prefetchRoom);
  return <RequireAuth />;
}

export function AppRoutes() {
  const { pathname } = useLocation();
  return (
    <RouteErrorBoundary pathname={pathname}>
      <Suspense fallback={<FullScreenLoader />}>
        <Routes>
          <Route path={PATHS.root} element={<RootRedirect />} />
          <Route element={<VisitorPages />}>
            <Route path={PATHS.login} element={<LoginPage />} />
            <Route path={PATHS.register} element={<RegisterPage />} />
            <Route path={PATHS.forgotPassword} element={<ForgotPasswordPage />} />
            <Route path={PATHS.resetPassword} element={<ResetPasswordPage />} />
          </Route>
          <Route element={<SignedInPages />}>
            <Route path={PATHS.dashboard} element={<DashboardPage />} />
            <Route path={PATHS.room} element={<RoomPage />} />
            <Route path={PATHS.onboarding} element={<OnboardingPage />} />
          </Route>
          <Route path={PATHS.languageTest} element={<LanguageTestPage smart={false} />} />
          <Route path={PATHS.smartLanguageTest} element={<LanguageTestPage smart />} />
          {/* Open to everyone: the sign-up form links here, and signed-in users may read them too. */}
          <Route path={PATHS.terms} element={<LegalPage document="terms" />} />
          <Route path={PATHS.privacy} element={<LegalPage document="privacy" />} />
          <Route path="*" element={<Navigate to={PATHS.root} replace />} />
        </Routes>
      </Suspense>
    </RouteErrorBoundary>
  );
}
