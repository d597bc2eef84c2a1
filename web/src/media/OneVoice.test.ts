import { describe, expect, it } from 'vitest';
import { type HeldVoice, OneVoice } from './OneVoice.ts';

const room = (left: string[]): HeldVoice => ({
  kind: 'room',
  name: 'Walk Lounge',
  leave: async () => {
    left.push('room');
  },
});
const call = (left: string[]): HeldVoice => ({
  kind: 'call',
  name: 'Bob',
  leave: () => {
    left.push('call');
  },
});

describe('OneVoice', () => {
  it('lets a claim through at once when nothing else holds the microphone', async () => {
    const voice = new OneVoice();
    const left: string[] = [];
    voice.hold(call(left));
    // A second call is the call's own business (one call at a time), not a question.
    expect(await voice.claim({ kind: 'call', action: 'call', name: 'Carol' })).toBe(true);
    expect(voice.question).toBeNull();
    expect(left).toEqual([]);
  });

  it('asks before answering a call in a room, and leaves the room first on yes', async () => {
    const voice = new OneVoice();
    const left: string[] = [];
    voice.hold(room(left));
    let told = 0;
    voice.subscribe(() => told++);
    const claimed = voice.claim({ kind: 'call', action: 'answer', name: 'Bob' });
    expect(voice.question).toEqual({
      claim: { kind: 'call', action: 'answer', name: 'Bob' },
      held: expect.objectContaining({ kind: 'room', name: 'Walk Lounge' }),
    });
    expect(left).toEqual([]);
    voice.answer(true);
    expect(await claimed).toBe(true);
    expect(left).toEqual(['room']);
    expect(voice.question).toBeNull();
    expect(told).toBe(2);
    // The room let go: the next claim passes without a question.
    expect(await voice.claim({ kind: 'call', action: 'answer', name: 'Bob' })).toBe(true);
  });

  it('leaves the call alone when the person says no to a room', async () => {
    const voice = new OneVoice();
    const left: string[] = [];
    voice.hold(call(left));
    const claimed = voice.claim({ kind: 'room', name: 'Walk Lounge' });
    expect(voice.question?.held.name).toBe('Bob');
    voice.answer(false);
    expect(await claimed).toBe(false);
    expect(left).toEqual([]);
  });

  it('answers an older question no when a newer one comes, and no to all on dispose', async () => {
    const voice = new OneVoice();
    const left: string[] = [];
    voice.hold(room(left));
    const first = voice.claim({ kind: 'call', action: 'answer', name: 'Bob' });
    const second = voice.claim({ kind: 'call', action: 'call', name: 'Carol' });
    expect(await first).toBe(false);
    expect(voice.question?.claim).toEqual({ kind: 'call', action: 'call', name: 'Carol' });
    voice.dispose();
    expect(await second).toBe(false);
    expect(left).toEqual([]);
  });

  it('forgets a voice once it lets go, but not a newer one of the same kind', async () => {
    const voice = new OneVoice();
    const left: string[] = [];
    const release = voice.hold(room(left));
    const newer = voice.hold(room(left));
    release();
    const claimed = voice.claim({ kind: 'call', action: 'answer', name: 'Bob' });
    expect(voice.question).not.toBeNull();
    voice.answer(true);
    await claimed;
    newer();
    expect(await voice.claim({ kind: 'call', action: 'answer', name: 'Bob' })).toBe(true);
  });
});
