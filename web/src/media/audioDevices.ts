/**
 * The microphone and speaker chosen in this browser (device ids belong to one browser, so they
 * live in local storage, not the profile), the lists to choose from, and what to use when the
 * chosen device is gone: the system default, with a short notice for the person (the voice
 * panel shows it). Rooms, calls and the settings dialog all read it from here. Free of React.
 */

/** A microphone (`input`) or a speaker (`output`). */
export type AudioDeviceKind = 'input' | 'output';

/** One device to choose; '' as the id stands for the system default. */
export interface AudioDevice {
  deviceId: string;
  label: string;
}

/** What the pickers and the media read: the choices, and the latest fallback to the default. */
export interface AudioDeviceChoices {
  input: string;
  output: string;
  /** Kinds whose chosen device was missing, the default used instead: shown for a few seconds. */
  fellBack: readonly AudioDeviceKind[];
}

/** Storage keys (no dots: the locale check reads dotted strings as translation keys). */
const STORAGE_KEYS: Record<AudioDeviceKind, string> = {
  input: 'audioInputDevice',
  output: 'audioOutputDevice',
};
const MEDIA_KINDS: Record<AudioDeviceKind, MediaDeviceKind> = { input: 'audioinput', output: 'audiooutput' };
/** Names the browser gives the system default (and Windows' communications device), not devices. */
const DEFAULT_ALIASES = new Set(['', 'default', 'communications']);
/** How long the fallback notice stays. */
const NOTICE_MS = 8000;

/** Reads a stored choice; '' (the default) when there is none or storage is unavailable. */
export function readChoice(storage: Pick<Storage, 'getItem'> | undefined, kind: AudioDeviceKind): string {
  try {
    const stored = storage?.getItem(STORAGE_KEYS[kind]);
    return typeof stored === 'string' ? stored : '';
  } catch {
    return '';
  }
}

/** Stores a choice; choosing the default removes the entry. */
export function writeChoice(
  storage: Pick<Storage, 'setItem' | 'removeItem'> | undefined,
  kind: AudioDeviceKind,
  deviceId: string,
): void {
  try {
    if (deviceId) storage?.setItem(STORAGE_KEYS[kind], deviceId);
    else storage?.removeItem(STORAGE_KEYS[kind]);
  } catch {
    // Kept for this page only (private mode, storage full).
  }
}

/**
 * The devices of `kind` in what enumerateDevices gave, without the browser's aliases of the
 * default ("Default" is offered separately); an unnamed device gets its position as its name.
 */
export function audioDevicesOf(
  devices: readonly Pick<MediaDeviceInfo, 'kind' | 'deviceId' | 'label'>[],
  kind: AudioDeviceKind,
): AudioDevice[] {
  const seen = new Set<string>();
  const chosen: AudioDevice[] = [];
  for (const device of devices) {
    if (device.kind !== MEDIA_KINDS[kind] || DEFAULT_ALIASES.has(device.deviceId)) continue;
    if (seen.has(device.deviceId)) continue;
    seen.add(device.deviceId);
    chosen.push({ deviceId: device.deviceId, label: device.label || `#${chosen.length + 1}` });
  }
  return chosen;
}

/**
 * The device to open for the choice `chosen`, given the devices present (`null`: unknown, as
 * before the microphone is allowed, when the browser hides the ids): the chosen one when it is
 * there or nothing says otherwise, else the default, with `fellBack` set.
 */
export function deviceToUse(
  chosen: string,
  present: readonly AudioDevice[] | null,
): { deviceId: string; fellBack: boolean } {
  if (!chosen || present === null) return { deviceId: chosen, fellBack: false };
  if (present.some((device) => device.deviceId === chosen)) return { deviceId: chosen, fellBack: false };
  return { deviceId: '', fellBack: true };
}

/** Whether a capture failed because the asked-for device is not there (unplugged, renamed). */
export function isMissingDeviceError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  const constraint = (error as { constraint?: unknown } | null)?.constraint;
  return name === 'NotFoundError' || (name === 'OverconstrainedError' && constraint === 'deviceId');
}

/** Whether this browser can send a page's audio to a chosen output (setSinkId). */
export function canChooseOutput(): boolean {
  return typeof HTMLMediaElement !== 'undefined' && 'setSinkId' in HTMLMediaElement.prototype;
}

/**
 * The devices of `kind` present now; null when the browser cannot list them or hides them
 * (no microphone permission yet). Outputs are listed only where they can be chosen.
 */
export async function listAudioDevices(kind: AudioDeviceKind): Promise<AudioDevice[] | null> {
  const mediaDevices = typeof navigator === 'undefined' ? undefined : navigator.mediaDevices;
  if (!mediaDevices?.enumerateDevices || (kind === 'output' && !canChooseOutput())) return null;
  let all: MediaDeviceInfo[];
  try {
    all = await mediaDevices.enumerateDevices();
  } catch {
    return null;
  }
  const ofKind = all.filter((device) => device.kind === MEDIA_KINDS[kind]);
  if (ofKind.length > 0 && ofKind.every((device) => !device.deviceId)) return null;
  return audioDevicesOf(ofKind, kind);
}

const storage = (): Storage | undefined => globalThis.localStorage;
let choices: AudioDeviceChoices = {
  input: readChoice(storage(), 'input'),
  output: readChoice(storage(), 'output'),
  fellBack: [],
};
const listeners = new Set<() => void>();
let noticeTimer: ReturnType<typeof setTimeout> | null = null;

function update(change: Partial<AudioDeviceChoices>): void {
  choices = { ...choices, ...change };
  for (const listener of [...listeners]) listener();
}

/** The choices now (a new object after each change, for useSyncExternalStore). */
export function audioDeviceChoices(): AudioDeviceChoices {
  return choices;
}

/** The chosen device of `kind` ('' = the default). */
export function chosenDevice(kind: AudioDeviceKind): string {
  return choices[kind];
}

/** The person chose a device (the open microphone and the playing rooms and calls follow). */
export function chooseDevice(kind: AudioDeviceKind, deviceId: string): void {
  if (choices[kind] === deviceId) return;
  writeChoice(storage(), kind, deviceId);
  // A new choice answers the notice about the old one.
  update({ [kind]: deviceId, fellBack: choices.fellBack.filter((gone) => gone !== kind) });
}

/** The chosen device of `kind` was missing: the default plays instead, and the person is told. */
export function reportFallback(kind: AudioDeviceKind): void {
  if (noticeTimer !== null) clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => {
    noticeTimer = null;
    update({ fellBack: [] });
  }, NOTICE_MS);
  if (!choices.fellBack.includes(kind)) update({ fellBack: [...choices.fellBack, kind] });
}

/** Hides the fallback notices. */
export function dismissFallback(): void {
  if (choices.fellBack.length > 0) update({ fellBack: [] });
}

export function subscribeAudioDevices(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The output to play to now: the chosen one if present, else the default (and the notice). */
export async function outputToUse(): Promise<string> {
  const chosen = chosenDevice('output');
  if (!chosen) return '';
  const { deviceId, fellBack } = deviceToUse(chosen, await listAudioDevices('output'));
  if (fellBack) reportFallback('output');
  return deviceId;
}
