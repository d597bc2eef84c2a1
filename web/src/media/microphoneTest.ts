/**
 * The microphone test of the voice settings: your own voice, captured as a room or a call
 * captures it (the chosen microphone, the person's processing, the default when it is gone),
 * played back to you at the spec's local monitoring gain (LOCAL_MONITOR_GAIN, 0.1: quiet, as
 * the speakers may feed it back into the microphone) on the chosen speaker, with its level
 * (an analyser of AUDIO_ANALYSER_FFT_SIZE samples) a few times a second. It has a capture of
 * its own, so a room or call you are in goes on as it was.
 */
import { AUDIO_ANALYSER_FFT_SIZE, LOCAL_MONITOR_GAIN } from '@voice/protocol';
import { outputToUse } from './audioDevices.ts';
import { type SinkTarget, setSink } from './audioOutput.ts';
import { levelOf } from './levelMeter.ts';
import { MicrophoneManager } from './MicrophoneManager.ts';

const LEVEL_INTERVAL_MS = 100;

export class MicrophoneTest {
  readonly #microphone: MicrophoneManager;
  readonly #context: AudioContext;
  readonly #timer: ReturnType<typeof setInterval>;

  private constructor(microphone: MicrophoneManager, stream: MediaStream, onLevel: (level: number) => void) {
    this.#microphone = microphone;
    this.#context = new AudioContext();
    const source = this.#context.createMediaStreamSource(stream);
    const monitor = this.#context.createGain();
    monitor.gain.value = LOCAL_MONITOR_GAIN;
    source.connect(monitor).connect(this.#context.destination);
    const analyser = this.#context.createAnalyser();
    analyser.fftSize = AUDIO_ANALYSER_FFT_SIZE;
    source.connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    this.#timer = setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      onLevel(levelOf(samples));
    }, LEVEL_INTERVAL_MS);
    void this.#context.resume().catch(() => {});
  }

  /**
   * Opens the microphone and starts playing it back; throws a MicrophoneError when it cannot
   * be opened. `onLevel` gets the level (0..1) until stop().
   */
  static async start(onLevel: (level: number) => void): Promise<MicrophoneTest> {
    const microphone = new MicrophoneManager();
    const stream = await microphone.getStream('call');
    let test: MicrophoneTest;
    try {
      test = new MicrophoneTest(microphone, stream, onLevel);
    } catch (error) {
      microphone.cleanup();
      throw error;
    }
    const output = await outputToUse();
    if (output) await setSink(test.#context as SinkTarget, output).catch(() => {});
    return test;
  }

  /** Stops the playback and releases the microphone. Idempotent. */
  stop(): void {
    clearInterval(this.#timer);
    this.#microphone.cleanup();
    if (this.#context.state !== 'closed') void this.#context.close().catch(() => {});
  }
}
