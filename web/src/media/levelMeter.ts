/**
 * The level of a stream's audio, a few times a second, for the meter of your own voice. An
 * AnalyserNode of AUDIO_ANALYSER_FFT_SIZE samples, nothing played out. It listens to copies of
 * the stream's tracks: muting or the push-to-talk gate disable the tracks that are sent, and
 * the meter must still hear you (to say "You are muted", and to open a voice-activity gate).
 */
import { AUDIO_ANALYSER_FFT_SIZE } from '@voice/protocol';

const INTERVAL_MS = 100;
/** Speech at a normal distance has an RMS around 0.05-0.2: scaled so it fills the meter. */
const GAIN = 4;

/** 0..1 from the RMS of `samples` (each -1..1). */
export function levelOf(samples: Float32Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.min(1, Math.sqrt(sum / samples.length) * GAIN);
}

export class LevelMeter {
  readonly #context: AudioContext;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #copies: MediaStreamTrack[];

  /** Starts measuring `stream`; `listener` gets each level until close(). */
  constructor(stream: MediaStream, listener: (level: number) => void) {
    this.#copies = stream.getAudioTracks().map((track) => track.clone());
    this.#context = new AudioContext();
    const analyser = this.#context.createAnalyser();
    analyser.fftSize = AUDIO_ANALYSER_FFT_SIZE;
    this.#context.createMediaStreamSource(new MediaStream(this.#copies)).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    this.#timer = setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      listener(levelOf(samples));
    }, INTERVAL_MS);
  }

  close(): void {
    clearInterval(this.#timer);
    for (const copy of this.#copies) copy.stop();
    void this.#context.close().catch(() => {});
  }
}
