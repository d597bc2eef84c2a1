/** A media server setting is missing or invalid; `problems` names each bad variable. */
export class MediaConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Invalid media server configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'MediaConfigError';
    this.problems = Object.freeze([...problems]);
  }
}

/** A method was called on an object in a state that forbids it (closed, no worker). */
export class InvalidStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidStateError';
  }
}

/** protoo status codes of the /rtc endpoint: for refused connections and refused requests. */
export const RTC_ERROR = {
  /** The request's data does not fit the method. */
  badRequest: 400,
  /** No valid room token for this room and person. */
  unauthorized: 401,
  /** Not joined yet, not the admin, not your object to touch. */
  forbidden: 403,
  /** Unknown method, or an id that is not one of yours. */
  notFound: 404,
  /** Already done: joined, producing, or no more transports. */
  conflict: 409,
  /** Over the per-member request rate (RTC_LIMITS). */
  tooManyRequests: 429,
  serverError: 500,
  /** This media server takes nobody new (it is draining): ask the API for the room again. */
  unavailable: 503,
} as const;

/** A protoo request refused: `status` goes back as the protoo error code, the message as the reason. */
export class RtcRequestError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'RtcRequestError';
    this.status = status;
  }
}

/** The refusal of a member a worker has no RTC port for (a connection, or an invited voice). */
export function noPortsLeft(): RtcRequestError {
  return new RtcRequestError(RTC_ERROR.conflict, 'Room is full: this media server has no ports left');
}

/** The refusal of a newcomer while the media server drains: the API places the room elsewhere. */
export function draining(): RtcRequestError {
  return new RtcRequestError(RTC_ERROR.unavailable, 'This media server is draining: ask for the room again');
}
