/**
 * The room's playback: each other member's track through its own hidden `<audio>` element, at
 * that member's volume (0..2, 200%). Up to 100% the element plays it. Above 100% the element is
 * muted (Chrome decodes a remote track only while an element holds it) and the track plays through
 * a gain node instead, on an AudioContext made the first time one is needed.
 *
 * Everything plays to the output the person chose (setSink: the default when it is gone).
 *
 * RoomClient owns the consumers and hands their tracks here; this class owns only the elements,
 * the gain nodes and the AudioContext.
 */
import { type SinkTarget, setSink } from '../../media/audioOutput.ts';

/** One track playing: its element, and its gain node once the volume went past 100%. */
interface Playback {
  peerId: string;
  element: HTMLAudioElement;
  stream: MediaStream;
  gain: GainNode | null;
}

export class RoomAudio {
  /** Per consumer id. */
  readonly #playbacks = new Map<string, Playback>();
  /** Per-member volume, 0..2 (200%). */
  readonly #volumes = new Map<string, number>();
  #context: AudioContext | null = null;
  /** The output everything plays to ('' = the system default). */
  #sinkId = '';
  #closed = false;

  /** Starts playing a consumer's track, at its member's volume. */
  play(consumerId: string, peerId: string, track: MediaStreamTrack): void {
    if (this.#closed) return;
    const stream = new MediaStream([track]);
    const element = document.createElement('audio');
    element.autoplay = true;
    element.hidden = true;
    element.dataset.peerId = peerId;
    element.srcObject = stream;
    if (this.#sinkId) RoomAudio.#sink(element, this.#sinkId);
    document.body.append(element);
    element.play().catch((error: unknown) => console.info('Room audio could not start playing', error));
    const playback: Playback = { peerId, element, stream, gain: null };
    this.#applyVolume(playback, this.#volumes.get(peerId) ?? 1);
    this.#playbacks.set(consumerId, playback);
  }

  /** One member's volume, 0..2; kept for their later tracks too. */
  setVolume(peerId: string, volume: number): void {
    const clamped = Math.min(2, Math.max(0, volume));
    this.#volumes.set(peerId, clamped);
    for (const playback of this.#playbacks.values()) {
      if (playback.peerId === peerId) this.#applyVolume(playback, clamped);
    }
  }

  /** Sends every track, now and later, to the output `deviceId` ('' = the system default). */
  setOutput(deviceId: string): void {
    if (this.#closed || deviceId === this.#sinkId) return;
    this.#sinkId = deviceId;
    for (const playback of this.#playbacks.values()) RoomAudio.#sink(playback.element, deviceId);
    if (this.#context) RoomAudio.#sink(this.#context, deviceId);
  }

  /** Stops a consumer's track and removes its element. */
  stop(consumerId: string): void {
    const playback = this.#playbacks.get(consumerId);
    if (!playback) return;
    RoomAudio.#release(playback);
    this.#playbacks.delete(consumerId);
  }

  /** Stops every track and closes the AudioContext. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const playback of this.#playbacks.values()) RoomAudio.#release(playback);
    this.#playbacks.clear();
    void this.#context?.close().catch(() => {});
  }

  #applyVolume(playback: Playback, volume: number): void {
    if (volume <= 1) {
      playback.element.muted = false;
      playback.element.volume = volume;
      if (playback.gain) playback.gain.gain.value = 0;
      return;
    }
    if (!playback.gain) {
      if (!this.#context) {
        this.#context = new AudioContext();
        if (this.#sinkId) RoomAudio.#sink(this.#context, this.#sinkId);
      }
      const context = this.#context;
      if (context.state === 'suspended') void context.resume().catch(() => {});
      playback.gain = context.createGain();
      context.createMediaStreamSource(playback.stream).connect(playback.gain).connect(context.destination);
    }
    playback.element.muted = true;
    playback.gain.gain.value = volume;
  }

  static #sink(target: SinkTarget | AudioContext, deviceId: string): void {
    setSink(target as SinkTarget, deviceId).catch((error: unknown) =>
      console.warn('Room audio could not switch its output', error),
    );
  }

  static #release({ element, gain }: Playback): void {
    gain?.disconnect();
    element.pause();
    element.srcObject = null;
    element.remove();
  }
}
