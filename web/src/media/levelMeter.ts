/**
 * The level of a stream's audio, a few times a second, for the meter of your own voice. An
 * AnalyserNode of AUDIO_ANALYSER_FFT_SIZE samples, nothing played out. It listens to copies of
 * the stream's tracks: muting or the push-to-talk gate disable the tracks that are sent, and
 * the meter must still hear you (to say "You are muted", and to open a voice-activity gate).
 */
import { AUDIO_ANALYSER_FFT_SIZE } from '@voice/protocol';
import { onVisibilityChange, pageHidden } from '../lib/pageVisibility.ts';
import { gateHearsLevel } from './voiceGate.ts';
import { subscribeVoiceSettings, voiceSettings } from './voiceSettings.ts';

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

/**
 * Whether your voice meter has work: always while the page shows (your ring, the panel's meter,
 * "You are muted"); while it is hidden only when a voice-activity gate with a sensitivity
 * (`gateHearsLevel`) decides whether what you say is sent, and you send (not muted, not in a
 * stage's audience). A background tab with the default settings (sent whenever the microphone
 * hears something) and every participant of the load tester spare the meter's AudioContext and
 * its audio thread.
 */
export function meterNeeded(now: {
  pageHidden: boolean;
  sending: boolean;
  gateHearsLevel: boolean;
}): boolean {
  return !now.pageHidden || (now.gateHearsLevel && now.sending);
}

export class LevelMeter {
  readonly #context: AudioContext;
  readonly #copies: MediaStreamTrack[];
  readonly #analyser: AnalyserNode;
  readonly #listener: (level: number) => void;
  #timer: ReturnType<typeof setInterval> | null = null;
  #closed = false;
  /** Whether your voice is sent now (see setSending). */
  #sending = true;
  readonly #unsubscribe: (() => void)[];

  /**
   * Starts measuring `stream`; `listener` gets each level until close(). It sleeps while it has
   * no work (meterNeeded), as the page's visibility and your voice settings change.
   */
  constructor(stream: MediaStream, listener: (level: number) => void) {
    this.#listener = listener;
    this.#copies = stream.getAudioTracks().map((track) => track.clone());
    this.#context = new AudioContext();
    this.#analyser = this.#context.createAnalyser();
    this.#analyser.fftSize = AUDIO_ANALYSER_FFT_SIZE;
    this.#context.createMediaStreamSource(new MediaStream(this.#copies)).connect(this.#analyser);
    this.#start();
    this.#unsubscribe = [
      onVisibilityChange(() => this.#asNeeded()),
      subscribeVoiceSettings(() => this.#asNeeded()),
    ];
    this.#asNeeded();
  }

  /** Whether your voice is sent now: not muted, not in a stage's audience. */
  setSending(sending: boolean): void {
    this.#sending = sending;
    this.#asNeeded();
  }

  #asNeeded(): void {
    const needed = meterNeeded({
      pageHidden: pageHidden(),
      sending: this.#sending,
      gateHearsLevel: gateHearsLevel(voiceSettings()),
    });
    if (needed) this.#resume();
    else this.#pause();
  }

  /**
   * Stops measuring while nobody needs the level (its AudioContext suspended: the browser's
   * audio thread for it sleeps); the listener hears 0 once. #resume() measures again.
   */
  #pause(): void {
    if (this.#closed || this.#timer === null) return;
    clearInterval(this.#timer);
    this.#timer = null;
    void this.#context.suspend().catch(() => {});
    this.#listener(0);
  }

  #resume(): void {
    if (this.#closed || this.#timer !== null) return;
    void this.#context.resume().catch(() => {});
    this.#start();
  }

  close(): void {
    this.#closed = true;
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    for (const copy of this.#copies) copy.stop();
    void this.#context.close().catch(() => {});
  }

  #start(): void {
    const samples = new Float32Array(this.#analyser.fftSize);
    this.#timer = setInterval(() => {
      this.#analyser.getFloatTimeDomainData(samples);
      this.#listener(levelOf(samples));
    }, INTERVAL_MS);
  }
}
