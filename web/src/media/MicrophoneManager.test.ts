import { VOICE_DEFAULTS } from '@voice/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type MicrophoneEvent, MicrophoneManager, type MicrophoneStatus } from './MicrophoneManager.ts';
import { MICROPHONE_ERROR_KEYS, MicrophoneError } from './microphoneErrors.ts';
import {
  domError,
  FakeMediaDevices,
  FakePermissions,
  fakeOf,
  overconstrained,
  recordingSleep,
} from './testing/fakeMicrophone.ts';

const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const SAFARI_UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15';

const CALL = {
  channelCount: 1,
  sampleRate: 44100,
  echoCancellation: true,
  noiseSuppression: true,
  autoGainControl: true,
};
const PROBE = { sampleRate: 8000, echoCancellation: false, noiseSuppression: false, autoGainControl: false };
const ALTERNATIVE = {
  sampleRate: 48000,
  channelCount: 1,
  echoCancellation: true,
  noiseSuppression: true,
  autoGainControl: true,
};

/** Lets promise chains started by an event (track ended, permission changed) run to the end. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('MicrophoneManager', () => {
  let devices: FakeMediaDevices;
  let permissions: FakePermissions;
  let sleep: ReturnType<typeof recordingSleep>;
  let logger: { error: ReturnType<typeof vi.fn<(...args: unknown[]) => void>> };
  let statuses: MicrophoneStatus[];
  let events: MicrophoneEvent[];

  function createManager(overrides: Partial<ConstructorParameters<typeof MicrophoneManager>[0]> = {}) {
    const manager = new MicrophoneManager({
      mediaDevices: devices,
      permissions,
      userAgent: CHROME_UA,
      sleep: sleep.sleep,
      logger,
      ...overrides,
    });
    manager.onStatusChange((status) => statuses.push(status));
    manager.onEvent((event) => events.push(event));
    return manager;
  }

  beforeEach(() => {
    devices = new FakeMediaDevices();
    permissions = new FakePermissions('prompt');
    sleep = recordingSleep();
    logger = { error: vi.fn<(...args: unknown[]) => void>() };
    statuses = [];
    events = [];
  });

  describe('checking permission', () => {
    it.each([
      ['granted', 'granted'],
      ['denied', 'denied'],
      ['prompt', 'unknown'],
    ] as const)('reads %s from the Permissions API as %s, without capturing', async (state, status) => {
      permissions = new FakePermissions(state);
      const manager = createManager();
      expect(manager.status).toBe('unknown');
      await expect(manager.checkPermission()).resolves.toBe(status);
      expect(manager.status).toBe(status);
      expect(permissions.queried).toEqual(['microphone']);
      expect(devices.requests).toEqual([]);
    });

    it('gives the denied message when the Permissions API says denied', async () => {
      permissions = new FakePermissions('denied');
      const manager = createManager();
      await manager.checkPermission();
      expect(manager.lastError?.display).toEqual({ key: MICROPHONE_ERROR_KEYS.denied });
    });

    it('falls back to a trial capture at 8000 Hz with processing off, released at once', async () => {
      const manager = createManager({ permissions: undefined });
      await expect(manager.checkPermission()).resolves.toBe('granted');
      expect(devices.requests).toEqual([{ audio: PROBE, video: false }]);
      expect(devices.streams[0]?.stopped).toBe(true);
      expect(manager.stream).toBeNull();
      expect(statuses).toEqual(['granted']);
    });

    it('falls back to the trial capture when the browser rejects the microphone permission name', async () => {
      permissions.rejectName = true;
      devices.failNext(domError('NotAllowedError', 'Permission denied'));
      const manager = createManager();
      await expect(manager.checkPermission()).resolves.toBe('denied');
      expect(permissions.queried).toEqual(['microphone']);
      expect(devices.audioRequests).toEqual([PROBE]);
    });

    it('says not-supported where the page cannot capture at all', async () => {
      const manager = createManager({ mediaDevices: undefined });
      await expect(manager.checkPermission()).resolves.toBe('not-supported');
      await expect(manager.requestPermission()).resolves.toBe('not-supported');
      const error = await manager.getStream().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MicrophoneError);
      expect((error as MicrophoneError).status).toBe('not-supported');
      expect((error as MicrophoneError).display).toEqual({ key: MICROPHONE_ERROR_KEYS.notSupported });
      expect(statuses).toEqual(['not-supported']);
    });

    it('runs in a runtime without navigator: the default wiring finds no capture', async () => {
      expect(typeof navigator).toBe('undefined');
      const manager = new MicrophoneManager();
      await expect(manager.checkPermission()).resolves.toBe('not-supported');
    });
  });

  describe('whether permission is held', () => {
    it.each([
      ['granted', true],
      ['denied', false],
      ['prompt', false],
    ] as const)(
      'asks the Permissions API only: %s is %s, nothing captured, status unchanged',
      async (state, held) => {
        permissions = new FakePermissions(state);
        const manager = createManager();
        await expect(manager.isPermissionGranted()).resolves.toBe(held);
        expect(devices.requests).toEqual([]);
        expect(statuses).toEqual([]);
      },
    );

    it('is false where the Permissions API cannot say, without a trial capture', async () => {
      permissions.rejectName = true;
      await expect(createManager().isPermissionGranted()).resolves.toBe(false);
      await expect(createManager({ permissions: undefined }).isPermissionGranted()).resolves.toBe(false);
      await expect(createManager({ mediaDevices: undefined }).isPermissionGranted()).resolves.toBe(false);
      expect(devices.requests).toEqual([]);
    });
  });

  describe('requesting permission', () => {
    it('asks with a trial capture when the browser would prompt, and releases it', async () => {
      const manager = createManager();
      await expect(manager.requestPermission()).resolves.toBe('granted');
      expect(devices.audioRequests).toEqual([PROBE]);
      expect(devices.streams[0]?.stopped).toBe(true);
      expect(manager.lastError).toBeNull();
    });

    it('does not capture when permission is already granted', async () => {
      permissions = new FakePermissions('granted');
      const manager = createManager();
      await expect(manager.requestPermission()).resolves.toBe('granted');
      expect(devices.requests).toEqual([]);
    });

    it('ends denied with the message when the user refuses', async () => {
      devices.failNext(domError('NotAllowedError', 'Permission denied'));
      const manager = createManager();
      await expect(manager.requestPermission()).resolves.toBe('denied');
      expect(manager.lastError?.display).toEqual({ key: MICROPHONE_ERROR_KEYS.denied });
      expect(devices.requests).toHaveLength(1);
    });
  });

  describe('the call capture', () => {
    it('asks for mono 44100 Hz with echo cancellation, noise suppression and auto gain', async () => {
      const manager = createManager();
      const stream = await manager.getStream();
      expect(devices.requests).toEqual([{ audio: CALL, video: false }]);
      expect(fakeOf(stream).stopped).toBe(false);
      expect(manager.stream).toBe(stream);
      expect(manager.status).toBe('granted');
      expect(statuses).toEqual(['granted']);
    });

    it('hands the open stream to later callers and one capture to concurrent ones', async () => {
      const manager = createManager();
      const [a, b] = await Promise.all([manager.getStream(), manager.getStream()]);
      expect(a).toBe(b);
      await expect(manager.getStream()).resolves.toBe(a);
      expect(devices.requests).toHaveLength(1);
    });

    it('takes the alternative path: 48000 Hz, one channel, 10 ms latency and 16-bit samples', async () => {
      const manager = createManager();
      await manager.getStream('alternative');
      expect(devices.audioRequests).toEqual([{ ...ALTERNATIVE, latency: 0.01, sampleSize: 16 }]);
    });

    it('leaves latency and sample size out of the alternative path in Safari', async () => {
      const manager = createManager({ userAgent: SAFARI_UA });
      expect(manager.isSafari).toBe(true);
      await manager.getStream('alternative');
      expect(devices.audioRequests).toEqual([ALTERNATIVE]);
    });

    it('tries the alternative path when the call constraints cannot be met', async () => {
      devices.failNext(overconstrained('sampleRate'));
      const manager = createManager();
      await manager.getStream();
      expect(devices.audioRequests).toEqual([CALL, { ...ALTERNATIVE, latency: 0.01, sampleSize: 16 }]);
      expect(manager.status).toBe('granted');
    });

    it("asks for the person's processing switches, on both paths, and keeps the probe's off", async () => {
      devices.failNext(overconstrained('sampleRate'));
      const processing = { echoCancellation: false, noiseSuppression: false, autoGainControl: true };
      const manager = createManager({ processing: () => processing });
      await manager.getStream();
      expect(devices.audioRequests).toEqual([
        { ...CALL, ...processing },
        { ...ALTERNATIVE, ...processing, latency: 0.01, sampleSize: 16 },
      ]);
    });

    it("asks for the spec's processing with the default voice settings", async () => {
      const manager = createManager({ processing: () => VOICE_DEFAULTS });
      await manager.getStream();
      expect(devices.audioRequests).toEqual([CALL]);
    });

    it('ends constraints-unsupported when neither set can be met', async () => {
      devices.failNext(overconstrained('sampleRate'), overconstrained('channelCount'));
      const manager = createManager();
      const error = (await manager.getStream().catch((e: unknown) => e)) as MicrophoneError;
      expect(error.status).toBe('constraints-unsupported');
      expect(error.display).toEqual({
        key: MICROPHONE_ERROR_KEYS.other,
        values: { message: 'Cannot satisfy channelCount' },
      });
      expect(manager.status).toBe('constraints-unsupported');
    });
  });

  describe('capture errors', () => {
    it.each([
      ['NotAllowedError', 'denied', { key: MICROPHONE_ERROR_KEYS.denied }],
      ['NotFoundError', 'no-device', { key: MICROPHONE_ERROR_KEYS.noDevice }],
      ['NotReadableError', 'error', { key: MICROPHONE_ERROR_KEYS.inUse }],
      ['SecurityError', 'error', { key: MICROPHONE_ERROR_KEYS.other, values: { message: 'Blocked here' } }],
    ] as const)('%s leaves %s with its message', async (name, status, display) => {
      devices.failNext(domError(name, 'Blocked here'));
      const manager = createManager();
      const error = (await manager.getStream().catch((e: unknown) => e)) as MicrophoneError;
      expect(error).toBeInstanceOf(MicrophoneError);
      expect(error.errorName).toBe(name);
      expect(error.status).toBe(status);
      expect(error.display).toEqual(display);
      expect(manager.status).toBe(status);
      expect(manager.lastError).toBe(error);
      expect(devices.requests).toHaveLength(1);
    });

    it.each([
      ['NotAllowedError', { key: MICROPHONE_ERROR_KEYS.deniedSafari }],
      ['NotFoundError', { key: MICROPHONE_ERROR_KEYS.noDevice }],
      ['NotReadableError', { key: MICROPHONE_ERROR_KEYS.inUse }],
      ['InvalidStateError', { key: MICROPHONE_ERROR_KEYS.otherSafari, values: { message: 'Not now' } }],
    ] as const)('in Safari, %s gives its message', async (name, display) => {
      devices.failNext(domError(name, 'Not now'));
      const manager = createManager({ userAgent: SAFARI_UA });
      const error = (await manager.getStream().catch((e: unknown) => e)) as MicrophoneError;
      expect(error.display).toEqual(display);
    });

    it('names the error when the browser gave no message', async () => {
      devices.failNext(domError('InvalidStateError'));
      const manager = createManager();
      const error = (await manager.getStream().catch((e: unknown) => e)) as MicrophoneError;
      expect(error.display.values).toEqual({ message: 'InvalidStateError' });
    });

    it.each(['AbortError', 'TimeoutError', 'NetworkError'])(
      'retries %s, waiting 1 s then 2 s, and succeeds on the third attempt',
      async (name) => {
        devices.failNext(domError(name, 'transient'), domError(name, 'transient'));
        const manager = createManager();
        await expect(manager.getStream()).resolves.toBeDefined();
        expect(devices.requests).toHaveLength(3);
        expect(sleep.waits).toEqual([1000, 2000]);
        expect(manager.status).toBe('granted');
      },
    );

    it('gives up after 3 attempts with the error of the last one', async () => {
      devices.failNext(
        domError('AbortError', 'one'),
        domError('TimeoutError', 'two'),
        domError('AbortError', 'three'),
      );
      const manager = createManager();
      const error = (await manager.getStream().catch((e: unknown) => e)) as MicrophoneError;
      expect(devices.requests).toHaveLength(3);
      expect(sleep.waits).toEqual([1000, 2000]);
      expect(error.status).toBe('error');
      expect(error.display).toEqual({ key: MICROPHONE_ERROR_KEYS.other, values: { message: 'three' } });
    });

    it('does not retry other errors', async () => {
      devices.failNext(domError('AbortError'), domError('NotFoundError'));
      const manager = createManager();
      const error = (await manager.getStream().catch((e: unknown) => e)) as MicrophoneError;
      expect(error.status).toBe('no-device');
      expect(devices.requests).toHaveLength(2);
      expect(sleep.waits).toEqual([1000]);
    });

    it('retries the trial capture too', async () => {
      devices.failNext(domError('AbortError'));
      const manager = createManager();
      await expect(manager.requestPermission()).resolves.toBe('granted');
      expect(devices.audioRequests).toEqual([PROBE, PROBE]);
    });

    describe('with the real clock', () => {
      beforeEach(() => vi.useFakeTimers());
      afterEach(() => vi.useRealTimers());

      it('waits 1 s times the attempt number between attempts', async () => {
        devices.failNext(domError('AbortError'), domError('AbortError'));
        // No sleep of the test's: the default one, on setTimeout.
        const manager = new MicrophoneManager({ mediaDevices: devices, permissions, userAgent: CHROME_UA });
        const done = manager.getStream();
        await vi.advanceTimersByTimeAsync(0);
        expect(devices.requests).toHaveLength(1);
        await vi.advanceTimersByTimeAsync(999);
        expect(devices.requests).toHaveLength(1);
        await vi.advanceTimersByTimeAsync(1);
        expect(devices.requests).toHaveLength(2);
        await vi.advanceTimersByTimeAsync(1999);
        expect(devices.requests).toHaveLength(2);
        await vi.advanceTimersByTimeAsync(1);
        expect(devices.requests).toHaveLength(3);
        await expect(done).resolves.toBeDefined();
      });
    });
  });

  describe('a permission revoked while a stream is open', () => {
    it('releases the stream and tells listeners', async () => {
      permissions = new FakePermissions('granted');
      const manager = createManager();
      await manager.checkPermission();
      const stream = await manager.getStream();

      permissions.status.change('denied');
      expect(fakeOf(stream).stopped).toBe(true);
      expect(manager.stream).toBeNull();
      expect(manager.status).toBe('denied');
      expect(manager.lastError?.display).toEqual({ key: MICROPHONE_ERROR_KEYS.denied });
      expect(events).toEqual([{ type: 'permission-revoked' }]);
      expect(statuses).toEqual(['granted', 'denied']);
    });

    it('counts a reset to prompt as revoked too, leaving the status unknown', async () => {
      permissions = new FakePermissions('granted');
      const manager = createManager();
      await manager.checkPermission();
      await manager.getStream();
      permissions.status.change('prompt');
      expect(events).toEqual([{ type: 'permission-revoked' }]);
      expect(manager.status).toBe('unknown');
    });

    it('only updates the status when no stream is open', async () => {
      permissions = new FakePermissions('granted');
      const manager = createManager();
      await manager.checkPermission();
      permissions.status.change('denied');
      expect(manager.status).toBe('denied');
      permissions.status.change('granted');
      expect(manager.status).toBe('granted');
      expect(events).toEqual([]);
    });
  });

  describe('a track that ends on its own', () => {
    it('drops the stream and, with permission still granted, opens a new one: recovered', async () => {
      permissions = new FakePermissions('granted');
      const manager = createManager();
      const first = await manager.getStream('alternative');

      fakeOf(first).track.end();
      expect(manager.stream).toBeNull();
      expect(fakeOf(first).stopped).toBe(true);
      await settle();

      expect(devices.streams).toHaveLength(2);
      const second = manager.stream;
      expect(second).toBe(devices.streams[1]);
      // The same constraints as the stream it replaces.
      expect(devices.audioRequests[1]).toEqual(devices.audioRequests[0]);
      expect(events).toEqual([{ type: 'track-ended' }, { type: 'recovered', stream: second }]);
      expect(permissions.queried).toEqual(['microphone']);
    });

    it('does not recover when permission is now denied', async () => {
      permissions = new FakePermissions('granted');
      const manager = createManager();
      const stream = await manager.getStream();
      permissions.status.state = 'denied';

      fakeOf(stream).track.end();
      await settle();
      expect(devices.requests).toHaveLength(1);
      expect(manager.status).toBe('denied');
      expect(manager.stream).toBeNull();
      expect(events).toEqual([{ type: 'track-ended' }]);
    });

    it('reports recovery-failed when the new capture fails', async () => {
      permissions = new FakePermissions('granted');
      const manager = createManager();
      const stream = await manager.getStream();
      devices.failNext(domError('NotFoundError', 'Requested device not found'));

      fakeOf(stream).track.end();
      await settle();
      expect(events.map((event) => event.type)).toEqual(['track-ended', 'recovery-failed']);
      const failed = events[1] as Extract<MicrophoneEvent, { type: 'recovery-failed' }>;
      expect(failed.error.display).toEqual({ key: MICROPHONE_ERROR_KEYS.noDevice });
      expect(manager.status).toBe('no-device');
    });

    it('re-checks with a trial capture where the Permissions API cannot say', async () => {
      const manager = createManager({ permissions: undefined });
      const stream = await manager.getStream();
      fakeOf(stream).track.end();
      await settle();
      expect(devices.audioRequests).toEqual([CALL, PROBE, CALL]);
      expect(devices.streams[1]?.stopped).toBe(true);
      expect(events.map((event) => event.type)).toEqual(['track-ended', 'recovered']);
    });

    it('reports recovery-failed when the trial capture finds no device', async () => {
      const manager = createManager({ permissions: undefined });
      const stream = await manager.getStream();
      devices.failNext(domError('NotFoundError'));
      fakeOf(stream).track.end();
      await settle();
      expect(devices.requests).toHaveLength(2);
      expect(events.map((event) => event.type)).toEqual(['track-ended', 'recovery-failed']);
    });

    it('ignores the end of a track it stopped itself', async () => {
      const manager = createManager();
      const stream = await manager.getStream();
      manager.cleanup();
      fakeOf(stream).track.end();
      await settle();
      expect(events).toEqual([]);
      expect(devices.requests).toHaveLength(1);
    });
  });

  it('tells listeners when the track is muted and unmuted', async () => {
    const manager = createManager();
    const stream = await manager.getStream();
    fakeOf(stream).track.mute();
    fakeOf(stream).track.unmute();
    expect(events).toEqual([{ type: 'track-muted' }, { type: 'track-unmuted' }]);
  });

  describe('cleanup', () => {
    it('stops the stream, stops listening, and resets to unknown', async () => {
      permissions = new FakePermissions('granted');
      const manager = createManager();
      await manager.checkPermission();
      const stream = await manager.getStream();
      expect(permissions.status.listening).toBe(1);

      manager.cleanup();
      expect(fakeOf(stream).stopped).toBe(true);
      expect(manager.stream).toBeNull();
      expect(manager.status).toBe('unknown');
      expect(manager.lastError).toBeNull();
      expect(permissions.status.listening).toBe(0);

      fakeOf(stream).track.mute();
      permissions.status.change('denied');
      expect(events).toEqual([]);
      expect(statuses).toEqual(['granted', 'unknown']);

      // Usable again afterwards.
      await manager.getStream();
      expect(manager.status).toBe('granted');
    });

    it('resets a failed status to unknown', async () => {
      devices.failNext(domError('NotAllowedError'));
      const manager = createManager();
      await manager.getStream().catch(() => undefined);
      manager.cleanup();
      expect(manager.status).toBe('unknown');
      expect(manager.lastError).toBeNull();
    });

    it('stops a capture that completes after it, and fails the caller with AbortError', async () => {
      const held = devices.holdNext();
      const manager = createManager();
      const opening = manager.getStream();
      manager.cleanup();
      held.resolve();
      await expect(opening).rejects.toMatchObject({ name: 'AbortError' });
      expect(devices.streams[0]?.stopped).toBe(true);
      expect(manager.stream).toBeNull();
      expect(manager.status).toBe('unknown');
    });

    it('stops retrying', async () => {
      devices.failNext(domError('AbortError'));
      let release: () => void = () => undefined;
      const manager = createManager({
        sleep: () =>
          new Promise<void>((resolve) => {
            release = resolve;
          }),
      });
      const opening = manager.getStream();
      await settle();
      manager.cleanup();
      release();
      await expect(opening).rejects.toMatchObject({ name: 'AbortError' });
      expect(devices.requests).toHaveLength(1);
    });

    it('drops a recovery under way', async () => {
      permissions = new FakePermissions('granted');
      const manager = createManager();
      const stream = await manager.getStream();
      const held = devices.holdNext();
      fakeOf(stream).track.end();
      await settle();
      expect(devices.requests).toHaveLength(2);
      manager.cleanup();
      held.resolve();
      await settle();
      expect(events).toEqual([{ type: 'track-ended' }]);
      expect(devices.streams[1]?.stopped).toBe(true);
      expect(manager.stream).toBeNull();
    });
  });

  it('keeps telling the other listeners when one throws, and logs it', async () => {
    const manager = createManager();
    manager.onStatusChange(() => {
      throw new Error('listener broke');
    });
    const after: MicrophoneStatus[] = [];
    manager.onStatusChange((status) => after.push(status));
    await manager.getStream();
    expect(after).toEqual(['granted']);
    expect(statuses).toEqual(['granted']);
    expect(logger.error).toHaveBeenCalledWith('Microphone status listener failed', expect.any(Error));
  });

  it('stops telling a listener that unsubscribed', async () => {
    const manager = createManager();
    const heard: MicrophoneStatus[] = [];
    const unsubscribe = manager.onStatusChange((status) => heard.push(status));
    unsubscribe();
    await manager.getStream();
    expect(heard).toEqual([]);
  });

  describe('the chosen microphone', () => {
    const present = [
      { deviceId: 'in1', label: 'Fake Audio Input 1' },
      { deviceId: 'in2', label: 'Fake Audio Input 2' },
    ];

    function withChoice(chosen: string, listed: typeof present | null = present) {
      const fallbacks: number[] = [];
      const manager = createManager({
        inputDevice: () => chosen,
        listInputs: async () => listed,
        deviceFallback: () => fallbacks.push(Date.now()),
      });
      return { manager, fallbacks };
    }

    it('opens the chosen device, with the call constraints', async () => {
      const { manager, fallbacks } = withChoice('in2');
      await manager.getStream();
      expect(devices.audioRequests).toEqual([{ ...CALL, deviceId: { exact: 'in2' } }]);
      expect(fallbacks).toEqual([]);
    });

    it('opens the default and says so when the chosen device is not listed', async () => {
      const { manager, fallbacks } = withChoice('unplugged');
      await manager.getStream();
      expect(devices.audioRequests).toEqual([CALL]);
      expect(fallbacks).toHaveLength(1);
    });

    it('opens the default when the capture finds no such device, without the alternative path', async () => {
      devices.failNext(overconstrained('deviceId'));
      const { manager, fallbacks } = withChoice('in1');
      await expect(manager.getStream()).resolves.toBeDefined();
      expect(devices.audioRequests).toEqual([{ ...CALL, deviceId: { exact: 'in1' } }, CALL]);
      expect(fallbacks).toHaveLength(1);
      expect(manager.status).toBe('granted');
    });

    it('recovers a lost track on the default when the chosen device went with it', async () => {
      permissions = new FakePermissions('granted');
      let listed: typeof present | null = present;
      const fallbacks: number[] = [];
      const manager = createManager({
        inputDevice: () => 'in1',
        listInputs: async () => listed,
        deviceFallback: () => fallbacks.push(1),
      });
      const first = await manager.getStream();
      listed = present.filter((device) => device.deviceId !== 'in1');
      fakeOf(first).track.end();
      await settle();
      await settle();
      const recovered = events.find((event) => event.type === 'recovered');
      expect(recovered).toBeDefined();
      expect(devices.audioRequests.at(-1)).toEqual(CALL);
      expect(fallbacks).toHaveLength(1);
    });

    it('switches an open capture to the newly chosen device, then stops the old one', async () => {
      let chosen = 'in1';
      const manager = createManager({ inputDevice: () => chosen, listInputs: async () => present });
      const first = await manager.getStream();
      chosen = 'in2';
      await manager.switchInput();
      const switched = events.find((event) => event.type === 'switched');
      expect(switched).toMatchObject({ type: 'switched', previous: first });
      expect(manager.stream).not.toBe(first);
      expect(fakeOf(manager.stream).constraints.audio).toEqual({ ...CALL, deviceId: { exact: 'in2' } });
      expect(fakeOf(first).stopped).toBe(true);
      // The old capture ending is not a lost microphone.
      fakeOf(first).track.end();
      await settle();
      expect(events.filter((event) => event.type === 'track-ended')).toEqual([]);
    });

    it('keeps the current capture when the new device cannot be opened', async () => {
      let chosen = 'in1';
      const manager = createManager({ inputDevice: () => chosen, listInputs: async () => present });
      const first = await manager.getStream();
      chosen = 'in2';
      devices.failNext(domError('NotReadableError', 'busy'));
      await expect(manager.switchInput()).rejects.toBeInstanceOf(MicrophoneError);
      expect(manager.stream).toBe(first);
      expect(fakeOf(first).stopped).toBe(false);
    });

    it('does nothing to switch without an open capture, and drops a switch overtaken by cleanup', async () => {
      const manager = createManager({ inputDevice: () => 'in2', listInputs: async () => present });
      await manager.switchInput();
      expect(devices.requests).toEqual([]);
      await manager.getStream();
      const held = devices.holdNext();
      const switching = manager.switchInput();
      await settle();
      manager.cleanup();
      held.resolve();
      await switching;
      expect(devices.streams.at(-1)?.stopped).toBe(true);
      expect(events.filter((event) => event.type === 'switched')).toEqual([]);
    });
  });
});
