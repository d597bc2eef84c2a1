/** Which translation key describes a failure (SPEC section 8). */
import { ERRORS } from '@voice/protocol';
import { ApiError } from './client.ts';

/** Generic messages for failures without a known server code. */
export const GENERIC_ERROR_KEYS = {
  network: 'errors.generic.network',
  server: 'errors.generic.server',
  unauthorized: 'errors.generic.unauthorized',
  forbidden: 'errors.generic.forbidden',
  notFound: 'errors.generic.notFound',
  validation: 'errors.generic.validation',
  unknown: 'errors.generic.unknown',
} as const;

function isKnownCode(code: string | null): code is keyof typeof ERRORS {
  return code !== null && Object.hasOwn(ERRORS, code);
}

/** The translation key of the most specific message for `error`. */
export function errorMessageKey(error: unknown): string {
  if (!(error instanceof ApiError)) return GENERIC_ERROR_KEYS.unknown;
  if (isKnownCode(error.code)) return `errors.${error.code}`;
  if (error.isNetworkError) return GENERIC_ERROR_KEYS.network;
  if (error.status >= 500) return GENERIC_ERROR_KEYS.server;
  switch (error.status) {
    case 400:
    case 422:
      return GENERIC_ERROR_KEYS.validation;
    case 401:
      return GENERIC_ERROR_KEYS.unauthorized;
    case 403:
      return GENERIC_ERROR_KEYS.forbidden;
    case 404:
      return GENERIC_ERROR_KEYS.notFound;
    case 429:
      return 'errors.RATE_LIMITED';
    default:
      return GENERIC_ERROR_KEYS.unknown;
  }
}

/** A message to show: a translation key and the values it interpolates. */
export interface ErrorMessage {
  key: string;
  values?: Record<string, string>;
}

/** The key of "Too many attempts" with the wait: "… Please try again in 15 minutes". */
export const RATE_LIMITED_WAIT_KEY = 'errors.rateLimitedWait';

/**
 * The most specific message for `error`, in `language`: as errorMessageKey, and a refusal for
 * too many attempts says how long to wait when the server told (Retry-After).
 */
export function errorMessage(error: unknown, language: string): ErrorMessage {
  const key = errorMessageKey(error);
  const wait = error instanceof ApiError ? error.retryAfterSeconds : null;
  if (key !== 'errors.RATE_LIMITED' || wait === null) return { key };
  return { key: RATE_LIMITED_WAIT_KEY, values: { wait: formatWait(wait, language) } };
}

/** A wait as "in 40 seconds" / "in 15 minutes" / "in 2 hours", rounded up, in `language`. */
export function formatWait(seconds: number, language: string): string {
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'always' });
  const wait = Math.max(1, Math.ceil(seconds));
  if (wait < 60) return format.format(wait, 'second');
  if (wait < 3600) return format.format(Math.ceil(wait / 60), 'minute');
  return format.format(Math.ceil(wait / 3600), 'hour');
}

/** True when `error` is an ApiError with the given server code. */
export function hasErrorCode(error: unknown, code: keyof typeof ERRORS): error is ApiError {
  return error instanceof ApiError && error.code === code;
}
