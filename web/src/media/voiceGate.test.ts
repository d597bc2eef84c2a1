import { describe, expect, it } from 'vitest';
import { type GateTimers, levelToDb, VOICE_ACTIVITY_HANGOVER_MS, VoiceGate } from './voiceGate.ts';

/** Timers a test moves by hand. */
function fakeTimers() {
  let now = 0;
  const tasks = new Map<number, { at: number; task: () => void }>();
  let next = 1;
  const timers: GateTimers = {
    now: () => now,
    setTimeout: (task, ms) => {
      tasks.set(next, { at: now + ms, task });
      return next++;
    },
    clearTimeout: (handle) => tasks.delete(handle as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, { at, task }] of [...tasks].sort((a, b) => a[1].at - b[1].at)) {
      if (at <= now) {
        tasks.delete(id);
        task();
      }
    }
  };
  return { timers, advance };
}

function gate(settings: ConstructorParameters<typeof VoiceGate>[0]) {
  const { timers, advance } = fakeTimers();
  const changes: boolean[] = [];
  const voiceGate = new VoiceGate(settings, (open) => changes.push(open), timers);
  return { voiceGate, changes, advance };
}

describe('VoiceGate, push-to-talk', () => {
  it('is closed until the key is held, and closes 200 ms after it is released', () => {
    const { voiceGate, changes, advance } = gate({ inputMode: 'push-to-talk', sensitivityDb: null });
    expect(voiceGate.open).toBe(false);
    voiceGate.keyDown();
    expect(voiceGate.open).toBe(true);
    voiceGate.keyUp();
    advance(199);
    expect(voiceGate.open).toBe(true);
    advance(1);
    expect(voiceGate.open).toBe(false);
    expect(changes).toEqual([true, false]);
  });

  it('a press within the tail keeps it open without a gap', () => {
    const { voiceGate, changes, advance } = gate({ inputMode: 'push-to-talk', sensitivityDb: null });
    voiceGate.keyDown();
    voiceGate.keyUp();
    advance(150);
    voiceGate.keyDown();
    advance(500);
    expect(voiceGate.open).toBe(true);
    expect(changes).toEqual([true]);
  });

  it('ignores levels and stray key releases', () => {
    const { voiceGate, changes } = gate({ inputMode: 'push-to-talk', sensitivityDb: -50 });
    voiceGate.level(1);
    voiceGate.keyUp();
    expect(changes).toEqual([]);
  });
});

describe('VoiceGate, voice activity', () => {
  it('without a sensitivity it is always open, and keys do nothing', () => {
    const { voiceGate, changes } = gate({ inputMode: 'voice', sensitivityDb: null });
    expect(voiceGate.open).toBe(true);
    voiceGate.keyDown();
    voiceGate.keyUp();
    voiceGate.level(0);
    expect(changes).toEqual([]);
  });

  it('opens above the sensitivity and closes after the hangover below it', () => {
    const { voiceGate, changes, advance } = gate({ inputMode: 'voice', sensitivityDb: -40 });
    expect(voiceGate.open).toBe(false);
    voiceGate.level(0.2); // about -26 dBFS
    expect(voiceGate.open).toBe(true);
    advance(100);
    voiceGate.level(0.001); // far below
    advance(VOICE_ACTIVITY_HANGOVER_MS - 101);
    expect(voiceGate.open).toBe(true);
    advance(1);
    expect(voiceGate.open).toBe(false);
    expect(changes).toEqual([true, false]);
  });

  it('a switch to push-to-talk closes it until the key is held', () => {
    const { voiceGate } = gate({ inputMode: 'voice', sensitivityDb: null });
    voiceGate.configure({ inputMode: 'push-to-talk', sensitivityDb: null });
    expect(voiceGate.open).toBe(false);
  });
});

describe('levelToDb', () => {
  it('turns the meter level back into dBFS', () => {
    expect(levelToDb(4 * 0.1)).toBeCloseTo(-20);
    expect(levelToDb(0)).toBe(-100);
  });
});
