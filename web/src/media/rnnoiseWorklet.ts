/**
 * The AudioWorklet processor that runs RNNoise on the microphone (issue 19, item 5). Built by
 * Vite as a script of its own (`?worker&url`) and added with `audioWorklet.addModule`.
 *
 * The wasm is RNNoise as @sapphi-red/web-noise-suppressor ships it (Shiguredo's build); the
 * page fetches it (SIMD where it can) and hands the bytes over. The package's own worklet
 * takes 128-sample quanta only and holds 512 samples; this one takes the context's quanta
 * whatever their size (480 where the page asked for them: RNNoise's frame, nothing held) and
 * holds only what framing needs (rnnoiseFrames.ts). The build has three imports of its own
 * (a memcpy, heap growth and a failed assertion), so it is instantiated here directly, without
 * Emscripten's loader.
 */
import { FrameAligner, RNNOISE, RNNOISE_PROCESSOR } from './rnnoiseFrames.ts';

// What an AudioWorkletGlobalScope has (not in TypeScript's DOM library).
declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(
  name: string,
  processor: new (options: AudioWorkletNodeOptions) => AudioWorkletProcessor,
): void;

/** What the page passes in `processorOptions`. */
export interface RnnoiseProcessorOptions {
  wasmBinary: ArrayBuffer;
}

/** What the page is told through the node's port. */
export type RnnoiseWorkletMessage =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  /** Once, at the first quantum: its size, and how far the output trails RNNoise's (samples). */
  | { type: 'framing'; quantumSamples: number; delaySamples: number };

interface RnnoiseExports {
  memory: WebAssembly.Memory;
  __wasm_call_ctors(): void;
  emscripten_stack_init(): void;
  rnnoise_create(model: number): number;
  rnnoise_destroy(state: number): void;
  rnnoise_process_frame(state: number, output: number, input: number): number;
  malloc(bytes: number): number;
  free(pointer: number): void;
}

/** RNNoise works on 16-bit sample values held in floats; Web Audio's are within ±1. */
const PCM_SCALE = 32_768;
const WASM_PAGE = 65_536;

/** One RNNoise state and its two frame buffers in the wasm's memory. */
class Denoiser {
  readonly #wasm: RnnoiseExports;
  readonly #state: number;
  readonly #input: number;
  readonly #output: number;
  readonly #frameSamples: number;

  static async create(binary: ArrayBuffer, frameSamples: number): Promise<Denoiser> {
    let memory: WebAssembly.Memory | undefined;
    const env = {
      emscripten_memcpy_big(to: number, from: number, bytes: number): void {
        new Uint8Array((memory as WebAssembly.Memory).buffer).copyWithin(to, from, from + bytes);
      },
      emscripten_resize_heap(requested: number): number {
        const current = (memory as WebAssembly.Memory).buffer.byteLength;
        try {
          (memory as WebAssembly.Memory).grow(Math.ceil((requested - current) / WASM_PAGE));
          return 1;
        } catch {
          return 0;
        }
      },
      __assert_fail(): never {
        throw new Error('RNNoise failed an assertion');
      },
    };
    const { instance } = await WebAssembly.instantiate(binary, { env });
    const wasm = instance.exports as unknown as RnnoiseExports;
    memory = wasm.memory;
    wasm.emscripten_stack_init();
    wasm.__wasm_call_ctors();
    return new Denoiser(wasm, frameSamples);
  }

  private constructor(wasm: RnnoiseExports, frameSamples: number) {
    this.#wasm = wasm;
    this.#frameSamples = frameSamples;
    this.#state = wasm.rnnoise_create(0); // 0: the built-in model
    this.#input = wasm.malloc(frameSamples * 4);
    this.#output = wasm.malloc(frameSamples * 4);
    if (!this.#state || !this.#input || !this.#output)
      throw new Error('RNNoise could not allocate its state');
  }

  /** Denoises `frame` in place. */
  process(frame: Float32Array): void {
    const wasm = this.#wasm;
    // A view made now: growing the memory detaches the previous buffer.
    const heap = new Float32Array(wasm.memory.buffer);
    const input = this.#input / 4;
    for (let i = 0; i < this.#frameSamples; i++) heap[input + i] = (frame[i] as number) * PCM_SCALE;
    wasm.rnnoise_process_frame(this.#state, this.#output, this.#input);
    const output = this.#output / 4;
    for (let i = 0; i < this.#frameSamples; i++) frame[i] = (heap[output + i] as number) / PCM_SCALE;
  }

  destroy(): void {
    this.#wasm.rnnoise_destroy(this.#state);
    this.#wasm.free(this.#input);
    this.#wasm.free(this.#output);
  }
}

class RnnoiseProcessor extends AudioWorkletProcessor {
  #denoiser: Denoiser | null = null;
  #aligner: FrameAligner | null = null;
  #destroyed = false;

  constructor(options: AudioWorkletNodeOptions) {
    super();
    const { wasmBinary } = options.processorOptions as RnnoiseProcessorOptions;
    this.port.onmessage = (event: MessageEvent) => {
      if (event.data === 'destroy') this.#destroy();
    };
    Denoiser.create(wasmBinary, RNNOISE.frameSamples).then(
      (denoiser) => {
        if (this.#destroyed) denoiser.destroy();
        else this.#denoiser = denoiser;
        this.#tell({ type: 'ready' });
      },
      (error: unknown) => this.#tell({ type: 'failed', message: String(error) }),
    );
  }

  /** Until the wasm is running the output is silence, never the noisy input. */
  process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    if (this.#destroyed) return false;
    const output = outputs[0]?.[0];
    if (!output) return true;
    if (!this.#aligner) {
      this.#aligner = new FrameAligner(output.length, (frame) => {
        if (this.#denoiser) this.#denoiser.process(frame);
        else frame.fill(0);
      });
      this.#tell({ type: 'framing', quantumSamples: output.length, delaySamples: this.#aligner.delay });
    }
    this.#aligner.push(inputs[0]?.[0] ?? null, output);
    return true;
  }

  #destroy(): void {
    this.#destroyed = true;
    this.#denoiser?.destroy();
    this.#denoiser = null;
  }

  #tell(message: RnnoiseWorkletMessage): void {
    this.port.postMessage(message);
  }
}

if (sampleRate !== RNNOISE.sampleRate)
  console.warn(`RNNoise expects 48 kHz; this context runs at ${sampleRate} Hz`);
registerProcessor(RNNOISE_PROCESSOR, RnnoiseProcessor);
