/**
 * The microphone as a room or a call sends it: the capture (MicrophoneManager's), through
 * RNNoise when the voice settings have noise suppression on, and the browser's own processing
 * switched as they say. It follows the settings while you are connected: noise suppression
 * switched on or off builds the other stream and hands it to `swap` (the owner puts its track
 * on the connection: a producer's or a sender's replaceTrack), then lets the old one go.
 * Echo cancellation and automatic gain are asked of the capture's tracks (applyConstraints);
 * a browser that cannot change them on a live track applies them from the next capture.
 */
import { type SuppressedStream, suppressNoise } from './noiseSuppression.ts';
import { subscribeVoiceSettings, voiceSettings } from './voiceSettings.ts';

export interface MicrophonePipelineOptions {
  /**
   * A settings change made a new stream to send in place of the one `send()` gave; the old one
   * stops once this settles.
   */
  swap: (stream: MediaStream) => Promise<void> | void;
  /** Where noise suppression comes from (tests give their own). */
  suppress?: (input: MediaStream) => Promise<SuppressedStream>;
}

function released(): DOMException {
  return new DOMException('The microphone was released while it was being prepared', 'AbortError');
}

export class MicrophonePipeline {
  readonly #swap: MicrophonePipelineOptions['swap'];
  readonly #suppress: (input: MediaStream) => Promise<SuppressedStream>;
  /** The capture and what is sent for it; null before send() and after close(). */
  #current: { input: MediaStream; output: SuppressedStream; suppressing: boolean } | null = null;
  /** Bumped by every send() and close(): an older send's result lands nowhere. */
  #sends = 0;
  /** Bumped by every settings change and close(): an older change's result lands nowhere. */
  #changes = 0;
  readonly #unsubscribe: () => void;

  constructor(options: MicrophonePipelineOptions) {
    this.#swap = options.swap;
    this.#suppress = options.suppress ?? suppressNoise;
    this.#unsubscribe = subscribeVoiceSettings(() => void this.#settingsChanged());
  }

  /** What is being sent, if anything. */
  get stream(): MediaStream | null {
    return this.#current?.output.stream ?? null;
  }

  /**
   * The stream to send for the capture `input`: its RNNoise-processed form when noise
   * suppression is on (or `input` where that cannot run), else `input`. The same input with
   * the same settings gives the same stream; a new input (a recovered microphone) replaces the
   * old one's processing. Throws an AbortError when close() or a newer send() came meanwhile.
   */
  async send(input: MediaStream): Promise<MediaStream> {
    const generation = ++this.#sends;
    for (;;) {
      const suppressing = voiceSettings().noiseSuppression;
      const current = this.#current;
      if (current?.input === input && current.suppressing === suppressing) return current.output.stream;
      const output = await this.#build(input, suppressing);
      if (generation !== this.#sends) {
        output.close();
        throw released();
      }
      // Switched while it was being built: build what the settings say now.
      if (voiceSettings().noiseSuppression !== suppressing) {
        output.close();
        continue;
      }
      const previous = this.#current;
      this.#current = { input, output, suppressing };
      if (previous && previous.output !== output) previous.output.close();
      return output.stream;
    }
  }

  /** Lets the processing go (the capture itself is MicrophoneManager's). Idempotent. */
  close(): void {
    this.#sends++;
    this.#changes++;
    this.#current?.output.close();
    this.#current = null;
  }

  /** For good: settings changes are no longer followed. */
  dispose(): void {
    this.close();
    this.#unsubscribe();
  }

  #build(input: MediaStream, suppressing: boolean): Promise<SuppressedStream> {
    if (!suppressing) return Promise.resolve({ stream: input, suppressed: false, close() {} });
    // Mute disables the tracks sent; the capture under a processed stream must keep running
    // (it may have been sent itself, and muted, before noise suppression was switched on).
    for (const track of input.getAudioTracks()) track.enabled = true;
    return this.#suppress(input);
  }

  async #settingsChanged(): Promise<void> {
    const generation = ++this.#changes;
    const current = this.#current;
    if (!current) return;
    const settings = voiceSettings();
    for (const track of current.input.getAudioTracks()) {
      track
        .applyConstraints({
          ...track.getConstraints(),
          echoCancellation: settings.echoCancellation,
          autoGainControl: settings.autoGainControl,
          noiseSuppression: settings.noiseSuppression,
        })
        .catch((error: unknown) =>
          console.warn('The microphone keeps its processing until the next capture', error),
        );
    }
    if (settings.noiseSuppression === current.suppressing) return;
    const output = await this.#build(current.input, settings.noiseSuppression);
    if (generation !== this.#changes || this.#current !== current) {
      output.close();
      return;
    }
    this.#current = { input: current.input, output, suppressing: settings.noiseSuppression };
    // The new stream is on the connection before the old one stops, so nothing is cut.
    try {
      await this.#swap(output.stream);
    } catch (error) {
      console.warn('The microphone could not be switched', error);
    }
    current.output.close();
  }
}
