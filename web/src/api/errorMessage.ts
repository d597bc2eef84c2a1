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

/** True when `error` is an ApiError with the given server code. */
export function hasErrorCode(error: unknown, code: keyof typeof ERRORS): error is ApiError {
  return error instanceof ApiError && error.code === code;
}
