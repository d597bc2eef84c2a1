/**
 * The microphone for calls (SPEC section 4 "Microphone permission"; constraints and retries
 * from section 9; messages from section 8).
 *
 * It knows where permission stands (the Permissions API, or a trial capture where that cannot
 * say), owns at most one capture stream, and tells listeners what happens to it: permission
 * revoked (the stream is released), a track that ended on its own (permission re-checked, then
 * recovered or recovery-failed unless denied), and tracks muted or unmuted by the system.
 * `cleanup()` releases everything and starts over from `unknown`.
 *
 * Captures open the microphone chosen in this browser (audioDevices.ts); when it is gone (not
 * listed, or the capture finds no such device) they open the default instead and the person is
 * told. `switchInput()` moves an open capture to a newly chosen microphone.
 */
import { MIC_RETRY } from '@voice/protocol';
import {
  type AudioProcessing,
  type CaptureVariant,
  captureConstraints,
  probeAudioConstraints,
} from './audioConstraints.ts';
import {
  type AudioDevice,
  chosenDevice,
  deviceToUse,
  isMissingDeviceError,
  listAudioDevices,
  reportFallback,
} from './audioDevices.ts';
import {
  isRetryableMicrophoneError,
  isSafariUserAgent,
  MicrophoneError,
  type MicrophoneStatus,
  microphoneStatusOf,
  notSupportedError,
  toMicrophoneError,
} from './microphoneErrors.ts';
import { voiceSettings } from './voiceSettings.ts';

export type { MicrophoneStatus } from './microphoneErrors.ts';

/** What listeners hear besides status changes. */
/** A microphone problem during a call or in a room, shown to the person (spec section 8 "Microphone"). */
export type MicrophoneWarning = 'permission-lost' | 'device-lost' | 'not-working';

export type MicrophoneEvent =
  /** Permission was withdrawn while a stream was open; the stream is already released. */
  | { type: 'permission-revoked' }
  /** A track ended without the app stopping it (device unplugged, taken by the system). */
  | { type: 'track-ended' }
  /** After a track ended: a new stream, to put in place of the lost one. */
  | { type: 'recovered'; stream: MediaStream }
  /** After a track ended: permission held, but no new stream could be opened. */
  | { type: 'recovery-failed'; error: MicrophoneError }
  /**
   * The person chose another microphone: a new stream, to put in place of `previous`, which
   * keeps running for a moment so the switch leaves no gap.
   */
  | { type: 'switched'; stream: MediaStream; previous: MediaStream }
  | { type: 'track-muted' }
  | { type: 'track-unmuted' };

/** The browser parts the manager uses; the defaults are the real `navigator`'s. */
export interface MicrophoneEnvironment {
  /** Absent where the page may not capture (not a secure context, or an old browser). */
  mediaDevices: Pick<MediaDevices, 'getUserMedia'> | undefined;
  /** Absent in some browsers; others reject the 'microphone' name. A trial capture answers then. */
  permissions: Pick<Permissions, 'query'> | undefined;
  /** Tells Safari apart: its messages and alternative constraints differ. */
  userAgent: string;
  /** Waits between capture attempts. */
  sleep: (ms: number) => Promise<void>;
  /** Where failing listeners are reported. */
  logger: Pick<Console, 'error'>;
  /** The browser's processing a call capture asks for: the person's voice settings. */
  processing: () => AudioProcessing;
  /** The microphone chosen in this browser ('' = the system default). */
  inputDevice: () => string;
  /** The microphones present; null when the browser cannot say (ids hidden before permission). */
  listInputs: () => Promise<AudioDevice[] | null>;
  /** The chosen microphone is gone and the default is used: the person is told. */
  deviceFallback: () => void;
}

/** The real browser's parts; in a non-browser runtime everything is absent. */
export function browserMicrophoneEnvironment(): MicrophoneEnvironment {
  const nav = typeof navigator === 'undefined' ? undefined : navigator;
  return {
    mediaDevices: typeof nav?.mediaDevices?.getUserMedia === 'function' ? nav.mediaDevices : undefined,
    permissions: typeof nav?.permissions?.query === 'function' ? nav.permissions : undefined,
    userAgent: nav?.userAgent ?? '',
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    logger: console,
    processing: voiceSettings,
    inputDevice: () => chosenDevice('input'),
    listInputs: () => listAudioDevices('input'),
    deviceFallback: () => reportFallback('input'),
  };
}

/** How long a replaced capture keeps running after `switched`, while the connection moves over. */
const SWITCH_OVERLAP_MS = 1000;

/** Thrown to whoever awaited a capture that `cleanup()` made pointless. */
function cancelled(): DOMException {
  return new DOMException('The microphone was released while it was being opened', 'AbortError');
}

function stopStream(stream: MediaStream): void {
  for (const track of stream.getTracks()) track.stop();
}

export class MicrophoneManager {
  readonly #env: MicrophoneEnvironment;
  readonly #safari: boolean;
  #status: MicrophoneStatus = 'unknown';
  #lastError: MicrophoneError | null = null;
  #stream: MediaStream | null = null;
  #pending: Promise<MediaStream> | null = null;
  /** The variant of the last stream opened: a recovery asks for the same. */
  #variant: CaptureVariant = 'call';
  #detachTracks: (() => void) | null = null;
  #permission: PermissionStatus | null = null;
  #unwatchPermission: (() => void) | null = null;
  /** Bumped by cleanup(): work begun before it must not land after it. */
  #generation = 0;
  /** Bumped by every switchInput(): an older switch's capture is let go. */
  #switches = 0;
  readonly #statusListeners = new Set<(status: MicrophoneStatus) => void>();
  readonly #eventListeners = new Set<(event: MicrophoneEvent) => void>();

  /** Parts not given are the browser's. */
  constructor(environment: Partial<MicrophoneEnvironment> = {}) {
    this.#env = { ...browserMicrophoneEnvironment(), ...environment };
    this.#safari = isSafariUserAgent(this.#env.userAgent);
  }

  get status(): MicrophoneStatus {
    return this.#status;
  }

  /** Why the microphone cannot be used, after a failed check or capture; null otherwise. */
  get lastError(): MicrophoneError | null {
    return this.#lastError;
  }

  /** The open capture stream, if any. */
  get stream(): MediaStream | null {
    return this.#stream;
  }

  get isSafari(): boolean {
    return this.#safari;
  }

  /** Returns an unsubscribe function. */
  onStatusChange(listener: (status: MicrophoneStatus) => void): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }

  /** Returns an unsubscribe function. */
  onEvent(listener: (event: MicrophoneEvent) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /**
   * Where permission stands, without prompting when the Permissions API can say: granted,
   * denied, or unknown while the browser would still ask. Where it cannot say, a trial capture
   * (8000 Hz, processing off, released at once) finds out, and may prompt.
   */
  async checkPermission(): Promise<MicrophoneStatus> {
    if (!this.#env.mediaDevices) return this.#fail(notSupportedError()).status;
    const generation = this.#generation;
    const state = await this.#queryPermission();
    if (generation !== this.#generation) return this.#status;
    if (state === null) return this.#trial(generation);
    this.#applyPermissionState(state);
    return this.#status;
  }

  /**
   * Whether the browser says permission is held, by the Permissions API alone: never prompts,
   * never captures; false where it cannot say.
   */
  async isPermissionGranted(): Promise<boolean> {
    if (!this.#env.mediaDevices) return false;
    return (await this.#queryPermission()) === 'granted';
  }

  /**
   * Asks for the microphone unless it is already allowed (the browser may prompt); the status
   * it ends in. `lastError` says why when it is not `granted`.
   */
  async requestPermission(): Promise<MicrophoneStatus> {
    if (this.#stream) return this.#status;
    if (!this.#env.mediaDevices) return this.#fail(notSupportedError()).status;
    const generation = this.#generation;
    const state = await this.#queryPermission();
    if (generation !== this.#generation) return this.#status;
    if (state === 'granted') {
      this.#applyPermissionState(state);
      return this.#status;
    }
    // Denied by the query too: the capture fails at once, and its error is the one to show.
    return this.#trial(generation);
  }

  /**
   * The call's capture stream, opened on first use (the browser may prompt): the spec's call
   * constraints, or its alternative path. Concurrent callers share one capture.
   * Throws a MicrophoneError, or an AbortError when `cleanup()` ran meanwhile.
   */
  getStream(variant: CaptureVariant = 'call'): Promise<MediaStream> {
    if (this.#stream) return Promise.resolve(this.#stream);
    if (this.#pending) return this.#pending;
    const pending: Promise<MediaStream> = this.#acquire(variant).finally(() => {
      if (this.#pending === pending) this.#pending = null;
    });
    this.#pending = pending;
    return pending;
  }

  /**
   * Moves the open capture to the microphone chosen now (or the default, when it is gone):
   * listeners get `switched` with the new stream. Without an open capture there is nothing to
   * do (the next capture opens the chosen one). A microphone that cannot be opened leaves the
   * current capture as it is; the error is thrown.
   */
  async switchInput(): Promise<void> {
    const previous = this.#stream;
    if (!previous) return;
    const generation = this.#generation;
    const switchNumber = ++this.#switches;
    let opened: { stream: MediaStream; variant: CaptureVariant };
    try {
      opened = await this.#captureCall(this.#variant, generation);
    } catch (error) {
      throw toMicrophoneError(error, this.#safari);
    }
    if (generation !== this.#generation || switchNumber !== this.#switches || this.#stream !== previous) {
      stopStream(opened.stream);
      return;
    }
    // Forget the old stream's track events first: stopping it later is not a lost microphone.
    this.#detachTracks?.();
    this.#detachTracks = null;
    this.#stream = null;
    this.#variant = opened.variant;
    this.#adopt(opened.stream);
    this.#emit({ type: 'switched', stream: opened.stream, previous });
    await this.#env.sleep(SWITCH_OVERLAP_MS);
    stopStream(previous);
  }

  /** Stops the stream, stops watching permission, and resets to `unknown`. Listeners stay. */
  cleanup(): void {
    this.#generation++;
    this.#pending = null;
    this.#release();
    this.#unwatchPermission?.();
    this.#unwatchPermission = null;
    this.#permission = null;
    this.#lastError = null;
    this.#variant = 'call';
    this.#setStatus('unknown');
  }

  async #acquire(variant: CaptureVariant): Promise<MediaStream> {
    if (!this.#env.mediaDevices) throw this.#fail(notSupportedError());
    const generation = this.#generation;
    let opened: { stream: MediaStream; variant: CaptureVariant };
    try {
      opened = await this.#captureCall(variant, generation);
    } catch (error) {
      if (generation !== this.#generation) throw cancelled();
      throw this.#fail(toMicrophoneError(error, this.#safari));
    }
    if (generation !== this.#generation) {
      stopStream(opened.stream);
      throw cancelled();
    }
    this.#variant = opened.variant;
    this.#adopt(opened.stream);
    this.#lastError = null;
    this.#setStatus('granted');
    return opened.stream;
  }

  /**
   * A capture of the chosen microphone; the default one when the chosen one is not listed, or
   * the browser finds no such device (unplugged between the listing and the capture).
   */
  async #captureCall(
    variant: CaptureVariant,
    generation: number,
  ): Promise<{ stream: MediaStream; variant: CaptureVariant }> {
    const chosen = this.#env.inputDevice();
    const present = chosen ? await this.#env.listInputs().catch(() => null) : null;
    const { deviceId, fellBack } = deviceToUse(chosen, present);
    if (fellBack) this.#env.deviceFallback();
    try {
      return await this.#captureOn(deviceId, variant, generation);
    } catch (error) {
      if (!deviceId || !isMissingDeviceError(error) || generation !== this.#generation) throw error;
      this.#env.deviceFallback();
      return this.#captureOn('', variant, generation);
    }
  }

  async #captureOn(
    deviceId: string,
    variant: CaptureVariant,
    generation: number,
  ): Promise<{ stream: MediaStream; variant: CaptureVariant }> {
    const device: MediaTrackConstraints = deviceId ? { deviceId: { exact: deviceId } } : {};
    try {
      const constraints = captureConstraints(variant, this.#safari, this.#env.processing());
      return { stream: await this.#capture({ ...constraints, ...device }, generation), variant };
    } catch (error) {
      // A browser that cannot meet the call set gets the spec's alternative path before giving up;
      // a missing device is not the constraints' fault.
      if (variant !== 'call' || isMissingDeviceError(error)) throw error;
      if (microphoneStatusOf(error) !== 'constraints-unsupported') throw error;
      const alternative = captureConstraints('alternative', this.#safari, this.#env.processing());
      return {
        stream: await this.#capture({ ...alternative, ...device }, generation),
        variant: 'alternative',
      };
    }
  }

  /** One getUserMedia, retried on abort, timeout and network errors: 1 s, then 2 s, … between. */
  async #capture(audio: MediaTrackConstraints, generation: number): Promise<MediaStream> {
    const devices = this.#env.mediaDevices;
    if (!devices) throw notSupportedError();
    for (let attempt = 1; ; attempt++) {
      try {
        return await devices.getUserMedia({ audio, video: false });
      } catch (error) {
        if (attempt >= MIC_RETRY.maxAttempts || !isRetryableMicrophoneError(error)) throw error;
        await this.#env.sleep(MIC_RETRY.delayPerAttemptMs * attempt);
        if (generation !== this.#generation) throw cancelled();
      }
    }
  }

  /** A capture that asks for permission and is released at once; the status it ends in. */
  async #trial(generation: number): Promise<MicrophoneStatus> {
    try {
      const stream = await this.#capture(probeAudioConstraints(), generation);
      stopStream(stream);
      if (generation !== this.#generation) return this.#status;
      this.#lastError = null;
      this.#setStatus('granted');
    } catch (error) {
      if (generation === this.#generation) this.#fail(toMicrophoneError(error, this.#safari));
    }
    return this.#status;
  }

  /** The Permissions API's answer, or null when this browser cannot give one. */
  async #queryPermission(): Promise<PermissionState | null> {
    const permissions = this.#env.permissions;
    if (!permissions) return null;
    let result: PermissionStatus;
    try {
      result = await permissions.query({ name: 'microphone' });
    } catch {
      return null;
    }
    this.#watchPermission(result);
    return result.state;
  }

  #applyPermissionState(state: PermissionState): void {
    if (state === 'granted') {
      this.#lastError = null;
      this.#setStatus('granted');
    } else if (state === 'denied') {
      this.#fail(toMicrophoneError({ name: 'NotAllowedError', message: '' }, this.#safari));
    } else {
      // 'prompt': the browser would ask; nothing is known until it does.
      this.#lastError = null;
      this.#setStatus('unknown');
    }
  }

  /** Follows permission changes, so a revocation during a call is noticed. */
  #watchPermission(permission: PermissionStatus): void {
    if (this.#permission === permission) return;
    this.#unwatchPermission?.();
    const onChange = () => this.#onPermissionChange(permission.state);
    permission.addEventListener('change', onChange);
    this.#permission = permission;
    this.#unwatchPermission = () => permission.removeEventListener('change', onChange);
  }

  #onPermissionChange(state: PermissionState): void {
    if (state === 'granted') {
      this.#applyPermissionState(state);
      return;
    }
    const hadStream = this.#stream !== null;
    this.#release();
    this.#applyPermissionState(state);
    if (hadStream) this.#emit({ type: 'permission-revoked' });
  }

  #adopt(stream: MediaStream): void {
    this.#stream = stream;
    const tracks = stream.getAudioTracks();
    const onEnded = () => void this.#onTrackEnded(stream);
    const onMute = () => this.#emit({ type: 'track-muted' });
    const onUnmute = () => this.#emit({ type: 'track-unmuted' });
    for (const track of tracks) {
      track.addEventListener('ended', onEnded);
      track.addEventListener('mute', onMute);
      track.addEventListener('unmute', onUnmute);
    }
    this.#detachTracks = () => {
      for (const track of tracks) {
        track.removeEventListener('ended', onEnded);
        track.removeEventListener('mute', onMute);
        track.removeEventListener('unmute', onUnmute);
      }
    };
  }

  /** Stops and forgets the stream; its tracks' events no longer reach listeners. */
  #release(): void {
    const stream = this.#stream;
    if (!stream) return;
    this.#stream = null;
    this.#detachTracks?.();
    this.#detachTracks = null;
    stopStream(stream);
  }

  /** A track ended on its own (`stop()` fires no 'ended'): drop the stream, re-check, recover. */
  async #onTrackEnded(stream: MediaStream): Promise<void> {
    if (this.#stream !== stream) return;
    this.#release();
    this.#emit({ type: 'track-ended' });
    const generation = this.#generation;
    const status = await this.checkPermission();
    if (generation !== this.#generation) return;
    // The user took the microphone away: nothing to recover, the status says denied.
    if (status === 'denied') return;
    if (status !== 'granted') {
      // The check itself failed (a trial capture found no device, or the browser would prompt).
      const error =
        this.#lastError ?? toMicrophoneError({ name: 'NotAllowedError', message: '' }, this.#safari);
      this.#emit({ type: 'recovery-failed', error });
      return;
    }
    try {
      const recovered = await this.getStream(this.#variant);
      if (generation === this.#generation) this.#emit({ type: 'recovered', stream: recovered });
    } catch (error) {
      if (generation === this.#generation && error instanceof MicrophoneError) {
        this.#emit({ type: 'recovery-failed', error });
      }
    }
  }

  #fail(error: MicrophoneError): MicrophoneError {
    this.#lastError = error;
    this.#setStatus(error.status);
    return error;
  }

  #setStatus(status: MicrophoneStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    for (const listener of [...this.#statusListeners]) {
      try {
        listener(status);
      } catch (error) {
        this.#env.logger.error('Microphone status listener failed', error);
      }
    }
  }

  #emit(event: MicrophoneEvent): void {
    for (const listener of [...this.#eventListeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#env.logger.error(`Microphone ${event.type} listener failed`, error);
      }
    }
  }
}
