import { describe, expect, it } from 'vitest';
import { NOTIFICATION_CHIME, RINGTONE, synthesize, wavFile } from './sounds.ts';

describe('synthesize', () => {
  it('makes as many samples as the notes last, silent where a note is a pause', () => {
    const samples = synthesize(
      [
        { frequencies: [1000], seconds: 0.1 },
        { frequencies: [], seconds: 0.05 },
      ],
      8000,
    );
    expect(samples.length).toBe(1200);
    expect(samples.slice(800).every((sample) => sample === 0)).toBe(true);
    expect(Math.max(...samples.slice(0, 800))).toBeGreaterThan(20_000);
  });

  it('fades notes in and out instead of clicking', () => {
    const samples = synthesize([{ frequencies: [440], seconds: 0.2 }], 8000);
    expect(Math.abs(samples[0] ?? 1)).toBe(0);
    expect(Math.abs(samples.at(-1) ?? 1)).toBeLessThan(200);
  });

  it('makes a ringtone of a few seconds with sound and a pause', () => {
    const seconds = synthesize(RINGTONE).length / 22_050;
    expect(seconds).toBeGreaterThan(2);
    expect(seconds).toBeLessThan(4);
  });
});

describe('wavFile', () => {
  it('writes a 16-bit mono PCM RIFF/WAVE header and the samples', () => {
    const view = new DataView(wavFile(new Int16Array([0, 1000, -1000]), 8000));
    const text = (at: number) => String.fromCharCode(...new Uint8Array(view.buffer, at, 4));
    expect([text(0), text(8), text(12), text(36)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
    expect(view.getUint32(4, true)).toBe(36 + 6);
    expect(view.getUint16(20, true)).toBe(1);
    expect(view.getUint16(22, true)).toBe(1);
    expect(view.getUint32(24, true)).toBe(8000);
    expect(view.getUint16(34, true)).toBe(16);
    expect(view.getUint32(40, true)).toBe(6);
    expect([view.getInt16(44, true), view.getInt16(46, true), view.getInt16(48, true)]).toEqual([
      0, 1000, -1000,
    ]);
  });
});

describe('NOTIFICATION_CHIME', () => {
  it('is a short sound, under half a second, unlike the ringtone', () => {
    const seconds = (notes: typeof RINGTONE) => notes.reduce((sum, note) => sum + note.seconds, 0);
    expect(seconds(NOTIFICATION_CHIME)).toBeLessThan(0.5);
    expect(seconds(RINGTONE)).toBeGreaterThan(2);
  });
});
