/**
 * Stand-ins for the browser's capture and permission APIs, so the microphone manager's
 * branches run in vitest: tracks that end, mute and unmute on cue, a permission whose state
 * the test changes, and getUserMedia answers queued by the test.
 */

/** An audio track: `stop()` ends it quietly, as in browsers; `end()` is the device going away. */
export class FakeTrack extends EventTarget {
  readonly kind = 'audio';
  readyState: MediaStreamTrackState = 'live';
  muted = false;
  enabled = true;
  stopped = false;
  /** What applyConstraints() was given, in order. */
  readonly applied: MediaTrackConstraints[] = [];
  #constraints: MediaTrackConstraints = {};

  getConstraints(): MediaTrackConstraints {
    return this.#constraints;
  }

  async applyConstraints(constraints: MediaTrackConstraints): Promise<void> {
    this.applied.push(constraints);
    this.#constraints = constraints;
  }

  stop(): void {
    this.stopped = true;
    this.readyState = 'ended';
  }

  /** Ends on its own (unplugged, taken by the system): fires 'ended'. */
  end(): void {
    this.readyState = 'ended';
    this.dispatchEvent(new Event('ended'));
  }

  mute(): void {
    this.muted = true;
    this.dispatchEvent(new Event('mute'));
  }

  unmute(): void {
    this.muted = false;
    this.dispatchEvent(new Event('unmute'));
  }
}

/** A capture stream of one audio track. */
export class FakeStream {
  readonly track = new FakeTrack();
  /** What getUserMedia was asked for. */
  readonly constraints: MediaStreamConstraints;

  constructor(constraints: MediaStreamConstraints) {
    this.constraints = constraints;
  }

  getTracks(): FakeTrack[] {
    return [this.track];
  }

  getAudioTracks(): FakeTrack[] {
    return [this.track];
  }

  get stopped(): boolean {
    return this.track.stopped;
  }
}

/** The fake behind a MediaStream the manager handed out. */
export function fakeOf(stream: MediaStream | null | undefined): FakeStream {
  if (!(stream instanceof FakeStream)) throw new TypeError('not a FakeStream');
  return stream;
}

/** A DOMException as browsers throw them (`NotAllowedError`, `AbortError`, …). */
export function domError(name: string, message = ''): DOMException {
  return new DOMException(message, name);
}

/** What getUserMedia raises for constraints it cannot meet: not a DOMException. */
export function overconstrained(constraint = 'sampleRate'): Error {
  return Object.assign(new Error(`Cannot satisfy ${constraint}`), {
    name: 'OverconstrainedError',
    constraint,
  });
}

/** A getUserMedia answer the test settles itself. */
export interface HeldCapture {
  resolve(): void;
  reject(error: unknown): void;
}

type Answer = { error: unknown } | { held: Promise<void> };

/** getUserMedia: succeeds unless an answer was queued; every request and stream is kept. */
export class FakeMediaDevices {
  readonly requests: MediaStreamConstraints[] = [];
  readonly streams: FakeStream[] = [];
  readonly #answers: Answer[] = [];

  /** The next calls fail with these errors, in order. */
  failNext(...errors: unknown[]): this {
    for (const error of errors) this.#answers.push({ error });
    return this;
  }

  /** The next call waits until the test settles it. */
  holdNext(): HeldCapture {
    let controls!: HeldCapture;
    const held = new Promise<void>((resolve, reject) => {
      controls = { resolve, reject };
    });
    this.#answers.push({ held });
    return controls;
  }

  readonly getUserMedia = async (constraints?: MediaStreamConstraints): Promise<MediaStream> => {
    const asked = constraints ?? {};
    this.requests.push(asked);
    const answer = this.#answers.shift();
    if (answer && 'error' in answer) throw answer.error;
    if (answer) await answer.held;
    const stream = new FakeStream(asked);
    this.streams.push(stream);
    return stream as unknown as MediaStream;
  };

  /** The audio constraints of every request, in order. */
  get audioRequests(): MediaTrackConstraints[] {
    return this.requests.map((request) => request.audio as MediaTrackConstraints);
  }
}

/** A PermissionStatus whose state the test changes (firing 'change', as browsers do). */
export class FakePermissionStatus extends EventTarget {
  readonly name = 'microphone';
  state: PermissionState;
  onchange: ((this: PermissionStatus, event: Event) => unknown) | null = null;

  constructor(state: PermissionState) {
    super();
    this.state = state;
  }

  change(state: PermissionState): void {
    this.state = state;
    this.dispatchEvent(new Event('change'));
  }

  readonly #listeners = new Set<unknown>();

  /** 'change' listeners still attached. */
  get listening(): number {
    return this.#listeners.size;
  }

  override addEventListener(...args: Parameters<EventTarget['addEventListener']>): void {
    this.#listeners.add(args[1]);
    super.addEventListener(...args);
  }

  override removeEventListener(...args: Parameters<EventTarget['removeEventListener']>): void {
    this.#listeners.delete(args[1]);
    super.removeEventListener(...args);
  }
}

/** navigator.permissions: answers with one status object, or rejects the name like old Firefox. */
export class FakePermissions {
  readonly status: FakePermissionStatus;
  readonly queried: string[] = [];
  rejectName = false;

  constructor(state: PermissionState = 'prompt') {
    this.status = new FakePermissionStatus(state);
  }

  readonly query = async (descriptor: PermissionDescriptor): Promise<PermissionStatus> => {
    this.queried.push(descriptor.name);
    if (this.rejectName) throw new TypeError(`'${descriptor.name}' is not a valid permission name`);
    return this.status as unknown as PermissionStatus;
  };
}

/** A sleep that returns at once and remembers how long it was asked to wait. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
}
