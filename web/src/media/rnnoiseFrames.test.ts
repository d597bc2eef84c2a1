import { describe, expect, it } from 'vitest';
import { FrameAligner, framingDelay, RNNOISE } from './rnnoiseFrames.ts';

/** A ramp: sample i is i + 1 (so a played zero is always the delay's silence). */
const ramp = (from: number, length: number) => Float32Array.from({ length }, (_, i) => from + i + 1);

/** Pushes `quanta` quanta of `size` through an aligner and returns everything played. */
function run(size: number, quanta: number, process: (frame: Float32Array) => void = () => {}) {
  const aligner = new FrameAligner(size, process);
  const played: number[] = [];
  for (let k = 0; k < quanta; k++) {
    const output = new Float32Array(size);
    aligner.push(ramp(k * size, size), output);
    played.push(...output);
  }
  return { aligner, played };
}

describe('framingDelay', () => {
  it('is nothing for quanta of a frame or whole frames, and the worst remainder otherwise', () => {
    expect(framingDelay(480)).toBe(0);
    expect(framingDelay(960)).toBe(0);
    expect(framingDelay(128)).toBe(448);
    expect(framingDelay(256)).toBe(448);
    expect(framingDelay(160)).toBe(320);
    expect(framingDelay(441)).toBe(477);
  });
});

describe('FrameAligner', () => {
  for (const size of [480, 128, 256, 160, 1024]) {
    it(`plays ${size}-sample quanta back exactly its delay late, never short`, () => {
      const { aligner, played } = run(size, 200);
      expect(aligner.delay).toBe(framingDelay(size));
      // The delay's silence first, then every sample in order: no gap, no repeat.
      expect(played.slice(0, aligner.delay).every((sample) => sample === 0)).toBe(true);
      const rest = played.slice(aligner.delay);
      expect(rest).toEqual(Array.from({ length: rest.length }, (_, i) => i + 1));
    });
  }

  it('hands the processor whole frames in order and plays what it made of them', () => {
    const frames: number[] = [];
    const { played } = run(128, 30, (frame) => {
      expect(frame.length).toBe(RNNOISE.frameSamples);
      const first = frame[0] as number;
      frames.push(first);
      frame.fill(-first);
    });
    expect(frames).toEqual(Array.from({ length: frames.length }, (_, i) => i * 480 + 1));
    expect(frames.length).toBe(Math.floor((30 * 128) / 480));
    // Each frame played back as the processor left it, from the delay on.
    expect(played.slice(448, 448 + 480).every((sample) => sample === -1)).toBe(true);
    expect(played.slice(448 + 480, 448 + 960).every((sample) => sample === -481)).toBe(true);
  });

  it('counts a quantum with nothing connected as silence', () => {
    const aligner = new FrameAligner(480, () => {});
    const output = new Float32Array(480).fill(7);
    aligner.push(null, output);
    expect(output.every((sample) => sample === 0)).toBe(true);
  });

  it('refuses a quantum size that is not a positive whole number', () => {
    for (const size of [0, -128, 12.5, Number.NaN])
      expect(() => new FrameAligner(size, () => {})).toThrow(RangeError);
  });
});
