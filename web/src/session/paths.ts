/**
 * The routes of SPEC section 2, apart from the guards and their React: the start-up script
 * reads them to fetch the page it opens on before the app's own code has arrived.
 */
export const PATHS = {
  root: '/',
  login: '/login',
  register: '/register',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  dashboard: '/dashboard',
  /** A group room's own screen; a link to it can be shared (roomPath). */
  room: '/rooms/:roomId',
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

/** The address of a room's screen. */
export function roomPath(roomId: string): string {
  return `/rooms/${encodeURIComponent(roomId)}`;
}

/** The query parameter of /login that names where to go after signing in. */
export const NEXT_PARAM = 'next';

/**
 * Where to go after signing in, from /login's query: a path of this app (a shared room link,
 * say), never another site (`//evil.example`, `https:`…), a visitor page, or something odd;
 * null when there is none.
 */
export function nextPathFrom(search: string): string | null {
  const next = new URLSearchParams(search).get(NEXT_PARAM);
  if (!next || next.length > 512 || !next.startsWith('/') || next.startsWith('//') || next.includes('\\'))
    return null;
  let url: URL;
  try {
    url = new URL(next, 'http://app.invalid');
  } catch {
    return null;
  }
  if (url.origin !== 'http://app.invalid' || VISITOR_PATHS.includes(url.pathname)) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * /login, with the way back to `path` when it is a link someone was given (a room's screen);
 * the home pages need none, signing in leads there anyway.
 */
export function loginPathBackTo(path: string): string {
  return path.startsWith('/rooms/')
    ? `${PATHS.login}?${new URLSearchParams({ [NEXT_PARAM]: path })}`
    : PATHS.login;
}
