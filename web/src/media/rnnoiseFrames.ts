/**
 * RNNoise's frames out of an AudioWorklet's render quanta, and back (issue 19, item 5).
 *
 * RNNoise takes 480 samples at 48 kHz at a time and answers them 480 samples late (its
 * overlap-add): that much delay is RNNoise's own. A worklet is handed render quanta of the
 * context's size instead: 480 where the browser honours `renderSizeHint` (Chromium does), and
 * 128 elsewhere. Whatever the size, a quantum must be answered at once, so output trails input
 * by the least delay that never runs dry: after k quanta of q samples, k·q came in and
 * 480·⌊k·q/480⌋ went through RNNoise, so the output needs (k·q mod 480) samples in hand, at
 * most 480 − gcd(q, 480). With 480-sample quanta that is nothing; with 128 it is 448 (the
 * package's own worklet held 512).
 *
 * Plain code, no Web Audio: the worklet (rnnoiseWorklet.ts) drives it, and its test runs in
 * Node.
 */

/** RNNoise's only rate, and the samples of one of its frames. */
export const RNNOISE = { sampleRate: 48_000, frameSamples: 480 } as const;

/** The name the worklet registers its processor under. */
export const RNNOISE_PROCESSOR = 'voice-rnnoise';

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Samples the output trails the input by, RNNoise's own delay not counted (see above). */
export function framingDelay(quantumSamples: number, frameSamples: number = RNNOISE.frameSamples): number {
  return frameSamples - gcd(quantumSamples, frameSamples);
}

/**
 * Gathers quanta into frames, has each frame processed in place, and plays the processed
 * samples back a fixed `delay` behind, in quanta of the same size.
 */
export class FrameAligner {
  /** Samples the output trails the input by. */
  readonly delay: number;
  readonly #process: (frame: Float32Array) => void;
  readonly #frame: Float32Array;
  #gathered = 0;
  /** Processed samples not played yet (the delay's silence first), as a ring. */
  readonly #ring: Float32Array;
  #read = 0;
  #held: number;

  constructor(
    quantumSamples: number,
    process: (frame: Float32Array) => void,
    frameSamples = RNNOISE.frameSamples,
  ) {
    if (!Number.isInteger(quantumSamples) || quantumSamples <= 0) {
      throw new RangeError(`A render quantum of ${quantumSamples} samples`);
    }
    this.delay = framingDelay(quantumSamples, frameSamples);
    this.#process = process;
    this.#frame = new Float32Array(frameSamples);
    // What can be in hand at once: the delay, a frame just processed and a quantum's worth.
    this.#ring = new Float32Array(this.delay + frameSamples + 2 * quantumSamples);
    this.#held = this.delay;
  }

  /**
   * Takes one quantum in and fills `output` (the same length) with what is due. `input` null
   * (nothing connected) counts as silence, so the timing holds.
   */
  push(input: Float32Array | null, output: Float32Array): void {
    const frame = this.#frame;
    for (let i = 0; i < output.length; i++) {
      frame[this.#gathered++] = input?.[i] ?? 0;
      if (this.#gathered === frame.length) {
        this.#process(frame);
        this.#append(frame);
        this.#gathered = 0;
      }
    }
    this.#take(output);
  }

  #append(samples: Float32Array): void {
    const ring = this.#ring;
    if (this.#held + samples.length > ring.length) throw new RangeError('The frame ring overflowed');
    let at = (this.#read + this.#held) % ring.length;
    for (const sample of samples) {
      ring[at] = sample;
      at = at + 1 === ring.length ? 0 : at + 1;
    }
    this.#held += samples.length;
  }

  /** Never short by design; a quantum of another size than announced gets silence for the rest. */
  #take(output: Float32Array): void {
    const ring = this.#ring;
    const due = Math.min(output.length, this.#held);
    for (let i = 0; i < due; i++) {
      output[i] = ring[this.#read] as number;
      this.#read = this.#read + 1 === ring.length ? 0 : this.#read + 1;
    }
    output.fill(0, due);
    this.#held -= due;
  }
}
