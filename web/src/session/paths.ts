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
