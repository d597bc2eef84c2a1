/**
 * What a failed microphone capture means (SPEC section 8, "Microphone capture errors" and
 * "Microphone classes"): the status it leaves, whether another attempt may help, and the
 * message to show as a translation key with its values.
 */
import type { ErrorMessage } from '../api/errorMessage.ts';

/** Where the microphone stands. `unknown` until checked, and again after cleanup. */
export type MicrophoneStatus =
  | 'unknown'
  | 'granted'
  | 'denied'
  | 'no-device'
  | 'constraints-unsupported'
  | 'error'
  | 'not-supported';

/** The statuses a failure can leave. */
export type MicrophoneFailure = Exclude<MicrophoneStatus, 'unknown' | 'granted'>;

/** Translation keys of the capture messages (English wording: the spec's). */
export const MICROPHONE_ERROR_KEYS = {
  denied: 'microphone.errors.denied',
  deniedSafari: 'microphone.errors.deniedSafari',
  noDevice: 'microphone.errors.noDevice',
  inUse: 'microphone.errors.inUse',
  other: 'microphone.errors.other',
  otherSafari: 'microphone.errors.otherSafari',
  notSupported: 'microphone.errors.notSupported',
} as const;

// Chrome before 53 and old adapter shims used the names on the right; they mean the same.
const DENIED = new Set(['NotAllowedError', 'PermissionDeniedError']);
const NO_DEVICE = new Set(['NotFoundError', 'DevicesNotFoundError']);
const IN_USE = new Set(['NotReadableError', 'TrackStartError']);
const CONSTRAINTS = new Set(['OverconstrainedError', 'ConstraintNotSatisfiedError']);
/** Transient failures (SPEC section 4): abort, timeout, network. */
const RETRYABLE = new Set(['AbortError', 'TimeoutError', 'NetworkError']);

/** A capture that failed, with what it means for the app. */
export class MicrophoneError extends Error {
  readonly status: MicrophoneFailure;
  /** The browser's error name (`NotAllowedError`, …), or `NotSupportedError` without capture at all. */
  readonly errorName: string;
  /** The message to show. */
  readonly display: ErrorMessage;

  constructor(status: MicrophoneFailure, errorName: string, detail: string, display: ErrorMessage) {
    super(detail ? `${errorName}: ${detail}` : errorName);
    this.name = 'MicrophoneError';
    this.status = status;
    this.errorName = errorName;
    this.display = display;
  }
}

/** The `name` of a DOMException, OverconstrainedError or Error; `Error` for anything else. */
export function errorName(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name) return name;
  }
  return 'Error';
}

function errorDetail(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string' && message) return message;
  }
  return typeof error === 'string' ? error : '';
}

/** True for the failures worth another attempt. */
export function isRetryableMicrophoneError(error: unknown): boolean {
  return RETRYABLE.has(errorName(error));
}

/** The status a capture failure leaves. */
export function microphoneStatusOf(error: unknown): MicrophoneFailure {
  const name = errorName(error);
  if (DENIED.has(name)) return 'denied';
  if (NO_DEVICE.has(name)) return 'no-device';
  if (CONSTRAINTS.has(name)) return 'constraints-unsupported';
  return 'error';
}

/** The spec's message for a capture failure; Safari gets its own wording. */
export function microphoneErrorMessage(error: unknown, safari: boolean): ErrorMessage {
  const name = errorName(error);
  if (DENIED.has(name))
    return { key: safari ? MICROPHONE_ERROR_KEYS.deniedSafari : MICROPHONE_ERROR_KEYS.denied };
  if (NO_DEVICE.has(name)) return { key: MICROPHONE_ERROR_KEYS.noDevice };
  if (IN_USE.has(name)) return { key: MICROPHONE_ERROR_KEYS.inUse };
  // An empty message would read "Microphone error: "; the name at least says something.
  const message = errorDetail(error) || name;
  return {
    key: safari ? MICROPHONE_ERROR_KEYS.otherSafari : MICROPHONE_ERROR_KEYS.other,
    values: { message },
  };
}

/** `error` as a MicrophoneError (returned as is when it already is one). */
export function toMicrophoneError(error: unknown, safari: boolean): MicrophoneError {
  if (error instanceof MicrophoneError) return error;
  return new MicrophoneError(
    microphoneStatusOf(error),
    errorName(error),
    errorDetail(error),
    microphoneErrorMessage(error, safari),
  );
}

/** The browser offers no capture here (an old browser, or a page not served over HTTPS). */
export function notSupportedError(): MicrophoneError {
  return new MicrophoneError('not-supported', 'NotSupportedError', '', {
    key: MICROPHONE_ERROR_KEYS.notSupported,
  });
}

/**
 * Safari proper, not the many browsers whose user agent also says "Safari" (Chrome, Edge,
 * Firefox and Opera on iOS and desktop, Android's WebView).
 */
export function isSafariUserAgent(userAgent: string): boolean {
  return (
    /safari/i.test(userAgent) && !/chrome|chromium|crios|fxios|edgios|edg\/|opr\/|android/i.test(userAgent)
  );
}
