/** Errors with a stable id; one middleware (http/errors.ts) turns them into responses. */
import { ERRORS, type ErrorCode } from '@voice/protocol';

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    /** The offending request field, for VALIDATION errors. */
    readonly field?: string,
    message?: string,
  ) {
    super(message ?? ERRORS[code].message);
    this.name = 'AppError';
    this.status = ERRORS[code].status;
  }
}

/** 429 with the number of seconds to wait. */
export class RateLimitedError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('RATE_LIMITED');
  }
}
