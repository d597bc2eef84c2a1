/**
 * Noise suppression (issue 19, item 5): the microphone through RNNoise, compiled to
 * WebAssembly, in an AudioWorklet (the wasm of @sapphi-red/web-noise-suppressor; the README
 * says why that package). RNNoise works on 10 ms frames of 480 samples at 48 kHz, so the
 * context runs at 48 kHz and asks for render quanta of exactly a frame (`renderSizeHint`):
 * then the worklet (rnnoiseWorklet.ts) holds nothing back and the delay added is RNNoise's
 * own, 10 ms. A browser that keeps 128-sample quanta gets 448 samples (9.3 ms) more
 * (rnnoiseFrames.ts). bench:voice measures it, with the round trip through the AudioContext.
 *
 * The worklet and both wasm builds (with and without SIMD) are files of the web build, served
 * from the app's own origin: nothing is fetched from elsewhere. Where the browser has no
 * AudioWorklet or cannot compile the wasm, the microphone is sent as it is, with a warning.
 */
import rnnoiseWasmUrl from '@sapphi-red/web-noise-suppressor/rnnoise.wasm?url';
import rnnoiseSimdWasmUrl from '@sapphi-red/web-noise-suppressor/rnnoise_simd.wasm?url';
import { RNNOISE, RNNOISE_PROCESSOR } from './rnnoiseFrames.ts';
import type { RnnoiseProcessorOptions, RnnoiseWorkletMessage } from './rnnoiseWorklet.ts';
import rnnoiseWorkletUrl from './rnnoiseWorklet.ts?worker&url';

/** `renderSizeHint` is newer than TypeScript's DOM library. */
interface SizedAudioContextOptions extends AudioContextOptions {
  renderSizeHint?: number | 'default' | 'hardware';
}

/** A context that does not start running within this long (autoplay policy) is given up. */
const RESUME_TIMEOUT_MS = 2000;

/** The microphone as it is sent. */
export interface SuppressedStream {
  /** The processed stream, or the input itself where suppression could not start. */
  readonly stream: MediaStream;
  /** Whether RNNoise runs on it. */
  readonly suppressed: boolean;
  /** Stops the processing (the input's tracks are the caller's, and are not stopped). */
  close(): void;
}

/** The wasm binary, fetched once per page (SIMD where the browser has it). */
let wasmBinary: Promise<ArrayBuffer> | null = null;

/** The package's loader (it picks the SIMD build where the browser has SIMD). */
const rnnoisePackage = () => import('@sapphi-red/web-noise-suppressor');

/**
 * The wasm binary, compiled here once first: the worklet compiles it again on its own, and a
 * failure there (a Content-Security-Policy without 'wasm-unsafe-eval', say) would leave it
 * silent, told only through its port. The page's policy is the worklet's, so a binary that
 * compiles here compiles there, and one that does not sends the microphone unprocessed.
 */
function loadWasm(): Promise<ArrayBuffer> {
  wasmBinary ??= rnnoisePackage()
    .then(({ loadRnnoise }) => loadRnnoise({ url: rnnoiseWasmUrl, simdUrl: rnnoiseSimdWasmUrl }))
    .then(async (binary) => {
      await WebAssembly.compile(binary);
      return binary;
    })
    .catch((error: unknown) => {
      wasmBinary = null; // a later try may succeed (the network came back)
      throw error;
    });
  return wasmBinary;
}

/** `input` unchanged: nothing to close. */
function unprocessed(input: MediaStream): SuppressedStream {
  return { stream: input, suppressed: false, close: () => {} };
}

/**
 * `input` through RNNoise in an AudioWorklet at 48 kHz. Never throws: where that cannot run,
 * the result is `input` itself (`suppressed` false) and a console warning says why.
 */
export async function suppressNoise(input: MediaStream): Promise<SuppressedStream> {
  if (input.getAudioTracks().length === 0) return unprocessed(input);
  if (typeof AudioContext === 'undefined' || typeof AudioWorkletNode === 'undefined') {
    console.warn('Noise suppression is unavailable: this browser has no AudioWorklet');
    return unprocessed(input);
  }
  let context: AudioContext | null = null;
  try {
    const options: SizedAudioContextOptions = {
      sampleRate: RNNOISE.sampleRate,
      latencyHint: 'interactive',
      renderSizeHint: RNNOISE.frameSamples,
    };
    context = new AudioContext(options);
    const [binary] = await Promise.all([loadWasm(), context.audioWorklet.addModule(rnnoiseWorkletUrl)]);
    const source = context.createMediaStreamSource(input);
    const processorOptions: RnnoiseProcessorOptions = { wasmBinary: binary };
    const rnnoise = new AudioWorkletNode(context, RNNOISE_PROCESSOR, {
      numberOfInputs: 1,
      numberOfOutputs: 1,
      outputChannelCount: [1],
      channelCount: 1,
      channelCountMode: 'explicit',
      processorOptions,
    });
    rnnoise.port.onmessage = (event: MessageEvent<RnnoiseWorkletMessage>) => {
      if (event.data.type === 'failed') console.warn('Noise suppression stopped:', event.data.message);
    };
    const destination = context.createMediaStreamDestination();
    destination.channelCount = 1;
    source.connect(rnnoise).connect(destination);
    await running(context);
    const opened = context;
    let closed = false;
    return {
      stream: destination.stream,
      suppressed: true,
      close: () => {
        if (closed) return;
        closed = true;
        rnnoise.port.postMessage('destroy');
        rnnoise.disconnect();
        source.disconnect();
        for (const track of destination.stream.getTracks()) track.stop();
        void opened.close().catch(() => {});
      },
    };
  } catch (error) {
    console.warn('Noise suppression is unavailable; the microphone is sent without it', error);
    void context?.close().catch(() => {});
    return unprocessed(input);
  }
}

/**
 * Resumes `context`. A page without a user gesture may keep it suspended, and a suspended
 * context sends silence: better the microphone unprocessed than not heard at all.
 */
async function running(context: AudioContext): Promise<void> {
  if (context.state === 'running') return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`The audio context stayed ${context.state} (no user gesture yet?)`)),
      RESUME_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([context.resume(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
