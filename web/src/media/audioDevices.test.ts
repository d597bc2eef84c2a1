import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  audioDeviceChoices,
  audioDevicesOf,
  chooseDevice,
  chosenDevice,
  deviceToUse,
  dismissFallback,
  isMissingDeviceError,
  readChoice,
  reportFallback,
  subscribeAudioDevices,
  writeChoice,
} from './audioDevices.ts';

/** A Storage of one Map, as local storage behaves. */
function memoryStorage(): Storage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    getItem: (key) => map.get(key) ?? null,
    key: (index) => [...map.keys()][index] ?? null,
    removeItem: (key) => void map.delete(key),
    setItem: (key, value) => void map.set(key, String(value)),
  };
}

/** What Chromium's fake devices list (ids shortened). */
const CHROMIUM_FAKES = [
  { kind: 'audioinput', deviceId: 'default', label: 'Fake Default Audio Input' },
  { kind: 'audioinput', deviceId: 'in1', label: 'Fake Audio Input 1' },
  { kind: 'audioinput', deviceId: 'in2', label: 'Fake Audio Input 2' },
  { kind: 'videoinput', deviceId: 'cam', label: 'fake_device_0' },
  { kind: 'audiooutput', deviceId: 'default', label: 'Fake Default Audio Output' },
  { kind: 'audiooutput', deviceId: 'out1', label: 'Fake Audio Output 1' },
  { kind: 'audiooutput', deviceId: 'communications', label: 'Communications' },
] as const satisfies readonly Pick<MediaDeviceInfo, 'kind' | 'deviceId' | 'label'>[];

describe('the stored choice', () => {
  it('is the default when nothing is stored, or storage is missing or throws', () => {
    expect(readChoice(memoryStorage(), 'input')).toBe('');
    expect(readChoice(undefined, 'output')).toBe('');
    const throwing = {
      getItem: () => {
        throw new Error('SecurityError');
      },
    };
    expect(readChoice(throwing, 'input')).toBe('');
  });

  it('keeps microphone and speaker apart, under keys without dots', () => {
    const storage = memoryStorage();
    writeChoice(storage, 'input', 'mic-2');
    writeChoice(storage, 'output', 'speaker-1');
    expect(readChoice(storage, 'input')).toBe('mic-2');
    expect(readChoice(storage, 'output')).toBe('speaker-1');
    for (const key of storage.map.keys()) expect(key).not.toContain('.');
  });

  it('forgets the entry when the default is chosen again', () => {
    const storage = memoryStorage();
    writeChoice(storage, 'input', 'mic-2');
    writeChoice(storage, 'input', '');
    expect(storage.map.size).toBe(0);
    expect(readChoice(storage, 'input')).toBe('');
  });

  it('survives a storage that refuses writes', () => {
    const refusing = {
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(() => writeChoice(refusing, 'output', 'x')).not.toThrow();
    expect(() => writeChoice(refusing, 'output', '')).not.toThrow();
  });
});

describe('the device lists', () => {
  it("lists one kind without the browser's aliases of the default", () => {
    expect(audioDevicesOf(CHROMIUM_FAKES, 'input')).toEqual([
      { deviceId: 'in1', label: 'Fake Audio Input 1' },
      { deviceId: 'in2', label: 'Fake Audio Input 2' },
    ]);
    expect(audioDevicesOf(CHROMIUM_FAKES, 'output')).toEqual([
      { deviceId: 'out1', label: 'Fake Audio Output 1' },
    ]);
  });

  it('names unnamed devices by position and lists a repeated id once', () => {
    const devices = [
      { kind: 'audioinput', deviceId: 'a', label: '' },
      { kind: 'audioinput', deviceId: 'a', label: '' },
      { kind: 'audioinput', deviceId: 'b', label: '' },
    ] as const;
    expect(audioDevicesOf(devices, 'input')).toEqual([
      { deviceId: 'a', label: '#1' },
      { deviceId: 'b', label: '#2' },
    ]);
  });
});

describe('choosing the device to open', () => {
  const present = [
    { deviceId: 'in1', label: 'Fake Audio Input 1' },
    { deviceId: 'in2', label: 'Fake Audio Input 2' },
  ];

  it('opens the chosen device while it is present', () => {
    expect(deviceToUse('in2', present)).toEqual({ deviceId: 'in2', fellBack: false });
  });

  it('falls back to the default when the chosen device is gone', () => {
    expect(deviceToUse('unplugged', present)).toEqual({ deviceId: '', fellBack: true });
    expect(deviceToUse('unplugged', [])).toEqual({ deviceId: '', fellBack: true });
  });

  it('opens the default without falling back when the default is chosen', () => {
    expect(deviceToUse('', present)).toEqual({ deviceId: '', fellBack: false });
    expect(deviceToUse('', null)).toEqual({ deviceId: '', fellBack: false });
  });

  it('tries the chosen device when the browser cannot say what is present', () => {
    expect(deviceToUse('in1', null)).toEqual({ deviceId: 'in1', fellBack: false });
  });

  it('tells a missing device from other capture failures', () => {
    expect(isMissingDeviceError(new DOMException('', 'NotFoundError'))).toBe(true);
    expect(isMissingDeviceError({ name: 'OverconstrainedError', constraint: 'deviceId' })).toBe(true);
    expect(isMissingDeviceError({ name: 'OverconstrainedError', constraint: 'sampleRate' })).toBe(false);
    expect(isMissingDeviceError(new DOMException('', 'NotAllowedError'))).toBe(false);
    expect(isMissingDeviceError(null)).toBe(false);
  });
});

describe('the fallback notice', () => {
  afterEach(() => {
    vi.useRealTimers();
    dismissFallback();
    chooseDevice('input', '');
    chooseDevice('output', '');
  });

  it('names each kind once, goes after a few seconds, and goes for a kind chosen anew', () => {
    vi.useFakeTimers();
    const heard: (readonly string[])[] = [];
    const unsubscribe = subscribeAudioDevices(() => heard.push(audioDeviceChoices().fellBack));
    reportFallback('input');
    reportFallback('input');
    reportFallback('output');
    expect(audioDeviceChoices().fellBack).toEqual(['input', 'output']);
    chooseDevice('input', 'in2');
    expect(audioDeviceChoices()).toMatchObject({ input: 'in2', fellBack: ['output'] });
    vi.advanceTimersByTime(8000);
    expect(audioDeviceChoices().fellBack).toEqual([]);
    unsubscribe();
    expect(heard.at(-1)).toEqual([]);
  });

  it('is dismissed at once', () => {
    reportFallback('output');
    dismissFallback();
    expect(audioDeviceChoices().fellBack).toEqual([]);
    expect(chosenDevice('output')).toBe('');
  });
});
