/**
 * Stable error ids with their HTTP status and the spec's English wording.
 * The API answers every failure as `{error: {code, message, field?}}`;
 * the web shows the translation of `errors.<code>`.
 */
export const ERRORS = {
  VALIDATION: { status: 400, message: 'Validation failed' },
  INVALID_JSON: { status: 400, message: 'Malformed JSON body' },
  PASSWORDS_DO_NOT_MATCH: { status: 400, message: 'Passwords do not match' },
  TERMS_NOT_ACCEPTED: { status: 400, message: 'You must accept the Terms of Service' },
  RESET_TOKEN_INVALID: {
    status: 400,
    message: 'This password reset link is invalid or has expired. Please request a new one.',
  },
  INVALID_CREDENTIALS: { status: 401, message: 'Invalid username or password' },
  /** A signed-in person confirming with the wrong password: 403, since a 401 would sign them out. */
  WRONG_PASSWORD: { status: 403, message: 'Wrong password' },
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  USER_NOT_FOUND: { status: 404, message: 'User not found' },
  FRIEND_REQUEST_NOT_FOUND: { status: 404, message: 'Friend request not found' },
  NOT_FRIENDS: { status: 404, message: 'This user is not your friend' },
  CANNOT_FRIEND_SELF: { status: 400, message: 'You cannot send a friend request to yourself' },
  ALREADY_FRIENDS: { status: 409, message: 'You are already friends' },
  USERNAME_TAKEN: { status: 409, message: 'Username is already taken' },
  EMAIL_TAKEN: { status: 409, message: 'Email is already registered' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  RATE_LIMITED: { status: 429, message: 'Too many requests. Please try again later.' },
  RESET_EMAIL_FAILED: { status: 500, message: 'Failed to send reset email. Please try again' },
  INVALID_IMAGE: { status: 400, message: 'Invalid image' },
  IMAGE_TOO_LARGE: { status: 413, message: 'Image too large' },
  IMAGE_PROCESSING_FAILED: { status: 422, message: 'Image processing failed' },
  CALL_NOT_FOUND: { status: 404, message: 'Call not found' },
  CALL_ALREADY_ANSWERED: { status: 409, message: 'Call was already answered' },
  USER_BUSY: { status: 409, message: 'User is busy' },
  USER_UNAVAILABLE: { status: 409, message: 'User is unavailable' },
  CALL_DECLINED: { status: 409, message: 'Call was declined' },
  CALL_TIMEOUT: { status: 408, message: 'Call timeout' },
  CALL_ERROR: { status: 500, message: 'Call error occurred' },
  ROOM_NOT_FOUND: { status: 404, message: 'Room not found' },
  ROOM_FULL: { status: 409, message: 'Room is full' },
  ROOM_LOCKED: { status: 403, message: 'Room is locked' },
  /** 403, not 401: the web treats a 401 as signed out. */
  ROOM_PASSWORD_REQUIRED: { status: 403, message: 'Room password required' },
  ROOM_PASSWORD_WRONG: { status: 403, message: 'Wrong room password' },
  /** Removed from the room by an admin or moderator: out for ROOM_LIMITS.kickBanSeconds unless invited again. */
  KICKED_RECENTLY: {
    status: 403,
    message: 'You were removed from this room. You can join again in 5 minutes, or when invited',
  },
  /** The admin cannot be named a moderator of their own room. */
  MODERATOR_IS_ADMIN: { status: 400, message: 'The room admin cannot be a moderator' },
  TOO_MANY_MODERATORS: { status: 409, message: 'This room has as many moderators as it may' },
  ROOM_CREATE_FAILED: { status: 500, message: 'Failed to create room' },
  ROOM_NAME_TOO_LONG: { status: 400, message: 'Room name is too long (max 100 characters)' },
  INVITE_EMPTY: { status: 400, message: 'Please select at least one friend to invite' },
  /** No media server is announcing itself, so no room can be placed. */
  MEDIA_UNAVAILABLE: {
    status: 503,
    message: 'Voice rooms are unavailable right now. Please try again later',
  },
  /**
   * A part the request needs (the database: a query past its deadline, no free connection)
   * did not answer in time; nothing was changed, and the answer carries Retry-After.
   */
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is busy. Please try again in a moment.' },
  /** Who is in which room cannot be known now (Redis does not answer): a join is refused, not guessed. */
  ROOMS_UNAVAILABLE: {
    status: 503,
    message: 'Rooms are unavailable right now. Please try again in a moment.',
  },
  /** A push subscription whose endpoint is not an https URL of a public host (the server forwards no requests inward). */
  PUSH_ENDPOINT_REFUSED: {
    status: 400,
    message: 'This push service address is not accepted',
  },
  INTERNAL: { status: 500, message: 'Server error' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** Body of every error response. */
export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    /** The offending field, for VALIDATION errors. */
    field?: string;
  };
}

export function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return (
    typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
  );
}
