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
