import { VOICE_DEFAULTS } from '@voice/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MicrophonePipeline } from './MicrophonePipeline.ts';
import type { SuppressedStream } from './noiseSuppression.ts';
import { FakeStream, type FakeTrack } from './testing/fakeMicrophone.ts';
import { setVoiceSettings } from './voiceSettings.ts';

const capture = () => new FakeStream({ audio: true }) as unknown as MediaStream;
const trackOf = (stream: MediaStream | null) => stream?.getAudioTracks()[0] as unknown as FakeTrack;
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A stand-in for RNNoise: each call makes a new "processed" stream; `hold` keeps them pending. */
function fakeSuppressor() {
  const made: { input: MediaStream; output: SuppressedStream; closed: boolean }[] = [];
  let held: (() => void)[] | null = null;
  const suppress = vi.fn(async (input: MediaStream): Promise<SuppressedStream> => {
    if (held) await new Promise<void>((resolve) => held?.push(resolve));
    const entry = { input, closed: false, output: null as unknown as SuppressedStream };
    entry.output = {
      stream: capture(),
      suppressed: true,
      close: () => {
        entry.closed = true;
      },
    };
    made.push(entry);
    return entry.output;
  });
  return {
    suppress,
    made,
    hold: () => {
      held = [];
    },
    release: () => {
      const waiting = held ?? [];
      held = null;
      for (const resolve of waiting) resolve();
    },
  };
}

function createPipeline() {
  const fake = fakeSuppressor();
  const swapped: MediaStream[] = [];
  const pipeline = new MicrophonePipeline({
    swap: (stream) => void swapped.push(stream),
    suppress: fake.suppress,
  });
  return { pipeline, fake, swapped };
}

afterEach(() => {
  setVoiceSettings(VOICE_DEFAULTS);
});

describe('MicrophonePipeline', () => {
  it('send() gives the noise-suppressed stream by default, the same one for the same capture', async () => {
    const { pipeline, fake } = createPipeline();
    const input = capture();
    const sent = await pipeline.send(input);
    expect(sent).toBe(fake.made[0]?.output.stream);
    await expect(pipeline.send(input)).resolves.toBe(sent);
    expect(fake.suppress).toHaveBeenCalledTimes(1);
    expect(pipeline.stream).toBe(sent);
    pipeline.dispose();
  });

  it('send() gives the capture itself with noise suppression off', async () => {
    setVoiceSettings({ noiseSuppression: false });
    const { pipeline, fake } = createPipeline();
    const input = capture();
    await expect(pipeline.send(input)).resolves.toBe(input);
    expect(fake.suppress).not.toHaveBeenCalled();
    pipeline.dispose();
  });

  it('switching noise suppression while sending swaps the stream, then lets the old one go', async () => {
    setVoiceSettings({ noiseSuppression: false });
    const { pipeline, fake, swapped } = createPipeline();
    const input = capture();
    await pipeline.send(input);
    // Sent unprocessed and muted: the capture itself was disabled.
    trackOf(input).enabled = false;

    setVoiceSettings({ noiseSuppression: true });
    await settle();
    const processed = fake.made[0];
    expect(swapped).toEqual([processed?.output.stream]);
    // The capture runs under the processed stream; its mute is the new track's business.
    expect(trackOf(input).enabled).toBe(true);

    setVoiceSettings({ noiseSuppression: false });
    await settle();
    expect(swapped).toEqual([processed?.output.stream, input]);
    expect(processed?.closed).toBe(true);
    pipeline.dispose();
  });

  it('asks the capture for the echo cancellation and automatic gain the settings say', async () => {
    const { pipeline, fake, swapped } = createPipeline();
    const input = capture();
    await pipeline.send(input);
    setVoiceSettings({ echoCancellation: false, autoGainControl: false });
    await settle();
    expect(trackOf(input).applied).toEqual([
      { echoCancellation: false, autoGainControl: false, noiseSuppression: true },
    ]);
    // Noise suppression did not change: nothing to swap.
    expect(swapped).toEqual([]);
    expect(fake.suppress).toHaveBeenCalledTimes(1);
    pipeline.dispose();
  });

  it('a switch back before the new stream is ready leaves the stream as it is', async () => {
    setVoiceSettings({ noiseSuppression: false });
    const { pipeline, fake, swapped } = createPipeline();
    const input = capture();
    await pipeline.send(input);
    fake.hold();
    setVoiceSettings({ noiseSuppression: true });
    setVoiceSettings({ noiseSuppression: false });
    fake.release();
    await settle();
    expect(swapped).toEqual([]);
    expect(fake.made[0]?.closed).toBe(true);
    expect(pipeline.stream).toBe(input);
    pipeline.dispose();
  });

  it('send() builds what the settings say when they change while it builds', async () => {
    const { pipeline, fake } = createPipeline();
    fake.hold();
    const sending = pipeline.send(capture());
    await settle();
    setVoiceSettings({ noiseSuppression: false });
    fake.release();
    const input = fake.suppress.mock.calls[0]?.[0];
    await expect(sending).resolves.toBe(input);
    expect(fake.made[0]?.closed).toBe(true);
    pipeline.dispose();
  });

  it('a new capture replaces the old one and its processing', async () => {
    const { pipeline, fake } = createPipeline();
    await pipeline.send(capture());
    const recovered = capture();
    const sent = await pipeline.send(recovered);
    expect(fake.made.map((made) => made.closed)).toEqual([true, false]);
    expect(fake.made[1]?.input).toBe(recovered);
    expect(sent).toBe(fake.made[1]?.output.stream);
    pipeline.dispose();
  });

  it('close() lets the processing go; a send it interrupted rejects with AbortError', async () => {
    const { pipeline, fake, swapped } = createPipeline();
    await pipeline.send(capture());
    pipeline.close();
    expect(fake.made[0]?.closed).toBe(true);
    expect(pipeline.stream).toBeNull();
    setVoiceSettings({ noiseSuppression: false });
    await settle();
    expect(swapped).toEqual([]);

    setVoiceSettings({ noiseSuppression: true });
    fake.hold();
    const sending = pipeline.send(capture());
    await settle();
    pipeline.close();
    fake.release();
    await expect(sending).rejects.toMatchObject({ name: 'AbortError' });
    expect(fake.made[1]?.closed).toBe(true);
    pipeline.dispose();
  });
});
