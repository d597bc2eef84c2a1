/**
 * Every page is a chunk of its own, loaded on first visit, and so is what only a signed-in
 * person needs above the pages (SignedInProviders: the app socket, friends, calls, rooms and
 * their libraries). Each loader reads its chunk once, within the spec's 120 s, and forgets a
 * failed read so that a later visit tries again.
 *
 * Free of React: the start-up script (main.tsx) calls preloadStartPage, so the page it opens
 * on downloads beside the app's code instead of after it (AppRoutes wraps the same loaders
 * in React.lazy).
 */

import { loadChunk } from '../lib/loadChunk.ts';
import { PATHS, VISITOR_PATHS } from '../session/paths.ts';
import { getToken } from '../session/tokenStorage.ts';

/** Loads a chunk once; `loaded` holds it once it is in. */
export interface ChunkLoader<T> {
  (): Promise<T>;
  readonly loaded: T | undefined;
}

/** Reads `load` once; a failure is passed on and forgotten. */
function once<T>(load: () => Promise<T>): ChunkLoader<T> {
  let loading: Promise<T> | null = null;
  let loaded: T | undefined;
  const loader = () => {
    if (!loading) {
      const read = loadChunk(load);
      loading = read;
      read.then(
        (module) => {
          loaded = module;
        },
        () => {
          if (loading === read) loading = null;
        },
      );
    }
    return loading;
  };
  return Object.defineProperty(loader, 'loaded', { get: () => loaded }) as ChunkLoader<T>;
}

/** The pages' modules, in the shape React.lazy takes. */
export const PAGES = {
  login: once(() => import('../features/auth/LoginPage.tsx').then((m) => ({ default: m.LoginPage }))),
  register: once(() =>
    import('../features/auth/RegisterPage.tsx').then((m) => ({ default: m.RegisterPage })),
  ),
  forgotPassword: once(() =>
    import('../features/auth/ForgotPasswordPage.tsx').then((m) => ({ default: m.ForgotPasswordPage })),
  ),
  resetPassword: once(() =>
    import('../features/auth/ResetPasswordPage.tsx').then((m) => ({ default: m.ResetPasswordPage })),
  ),
  dashboard: once(() =>
    import('../features/dashboard/DashboardPage.tsx').then((m) => ({ default: m.DashboardPage })),
  ),
  room: once(() => import('../features/dashboard/RoomPage.tsx').then((m) => ({ default: m.RoomPage }))),
  onboarding: once(() =>
    import('../features/onboarding/OnboardingPage.tsx').then((m) => ({ default: m.OnboardingPage })),
  ),
  // The language test pages are for support and QA.
  languageTest: once(() =>
    import('../features/languageTest/LanguageTestPage.tsx').then((m) => ({ default: m.LanguageTestPage })),
  ),
  // The terms and privacy pages.
  legal: once(() => import('../features/legal/LegalPage.tsx').then((m) => ({ default: m.LegalPage }))),
};

type PageName = keyof typeof PAGES;

/** The providers of a signed-in person. */
export const loadSignedInProviders = once(() => import('./SignedInProviders.tsx'));

const PAGE_AT: Record<string, PageName> = {
  [PATHS.login]: 'login',
  [PATHS.register]: 'register',
  [PATHS.forgotPassword]: 'forgotPassword',
  [PATHS.resetPassword]: 'resetPassword',
  [PATHS.dashboard]: 'dashboard',
  [PATHS.onboarding]: 'onboarding',
  [PATHS.languageTest]: 'languageTest',
  [PATHS.smartLanguageTest]: 'languageTest',
  [PATHS.terms]: 'legal',
  [PATHS.privacy]: 'legal',
};
const SIGNED_IN_PAGES: readonly PageName[] = ['dashboard', 'room', 'onboarding'];

/**
 * Starts loading the page that `pathname` will show, where the guards send it: a stored
 * token (someone signed in) turns the visitor pages and the root into the dashboard and also
 * needs the signed-in providers; without one the signed-in pages and the root become /login.
 * Failures are left for the route to show when it renders.
 */
export function preloadStartPage(pathname: string): void {
  const signedIn = getToken() !== null;
  const known = PAGE_AT[pathname] ?? (pathname.startsWith('/rooms/') ? 'room' : undefined);
  let page: PageName;
  if (signedIn) page = known === undefined || VISITOR_PATHS.includes(pathname) ? 'dashboard' : known;
  else page = known === undefined || SIGNED_IN_PAGES.includes(known) ? 'login' : known;
  const ignore = () => {};
  PAGES[page]().catch(ignore);
  if (signedIn) loadSignedInProviders().catch(ignore);
}

/**
 * Loads, without showing them, the providers and the page a visitor goes to after signing
 * in, so that sign-in does not wait for them; skipped when the browser asks to save data.
 */
export function prefetchSignedIn(): void {
  if (savingData()) return;
  const ignore = () => {};
  loadSignedInProviders().catch(ignore);
  PAGES.dashboard().catch(ignore);
}

/**
 * Loads, without showing them, the room's screen and its runtime (mediasoup-client, protoo) once
 * a signed-in page is idle, so that Join opens the room at once: loaded on the click, a busy
 * machine kept the dashboard on screen (the navigation waiting for the chunk) for a minute.
 * Skipped when the browser asks to save data.
 */
export function prefetchRoom(): void {
  if (savingData() || getToken() === null) return;
  const ignore = () => {};
  PAGES.room().catch(ignore);
  loadChunk(() => import('../features/rooms/roomRuntime.ts')).catch(ignore);
}

/** The browser asks pages to save data (Save-Data): nothing is loaded ahead of need. */
function savingData(): boolean {
  return (navigator as { connection?: { saveData?: boolean } }).connection?.saveData === true;
}
