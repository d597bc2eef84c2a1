/**
 * Your voice settings in this tab (protocol's VoiceSettings): read by the microphone pipeline
 * (noise suppression, echo cancellation, automatic gain), the push-to-talk and voice-activity
 * gates, and the settings dialog. Kept in local storage so a reload keeps them; a signed-in
 * person's profile brings them to other browsers (applyProfileVoiceSettings). Free of React.
 */
import { INPUT_MODES, VOICE_DEFAULTS, VOICE_LIMITS, type VoiceSettings } from '@voice/protocol';

const STORAGE_KEY = 'voiceSettings';

let current: VoiceSettings = read();
const listeners = new Set<() => void>();

/** `value` as settings, field by field: what is missing or malformed is the default. */
export function toVoiceSettings(value: unknown): VoiceSettings {
  const given = (typeof value === 'object' && value !== null ? value : {}) as Partial<
    Record<keyof VoiceSettings, unknown>
  >;
  const bool = (field: 'noiseSuppression' | 'echoCancellation' | 'autoGainControl') =>
    typeof given[field] === 'boolean' ? (given[field] as boolean) : VOICE_DEFAULTS[field];
  const sensitivity = given.sensitivityDb;
  const key = given.pushToTalkKey;
  return {
    inputMode: INPUT_MODES.includes(given.inputMode as never)
      ? (given.inputMode as VoiceSettings['inputMode'])
      : VOICE_DEFAULTS.inputMode,
    pushToTalkKey:
      typeof key === 'string' && /^[A-Za-z0-9]+$/.test(key) && key.length <= VOICE_LIMITS.keyCodeMaxLength
        ? key
        : VOICE_DEFAULTS.pushToTalkKey,
    sensitivityDb:
      sensitivity === null
        ? null
        : typeof sensitivity === 'number' &&
            sensitivity >= VOICE_LIMITS.sensitivityMinDb &&
            sensitivity <= VOICE_LIMITS.sensitivityMaxDb
          ? sensitivity
          : VOICE_DEFAULTS.sensitivityDb,
    noiseSuppression: bool('noiseSuppression'),
    echoCancellation: bool('echoCancellation'),
    autoGainControl: bool('autoGainControl'),
  };
}

function read(): VoiceSettings {
  try {
    const stored = globalThis.localStorage?.getItem(STORAGE_KEY);
    return toVoiceSettings(stored ? JSON.parse(stored) : {});
  } catch {
    return { ...VOICE_DEFAULTS };
  }
}

export function voiceSettings(): VoiceSettings {
  return current;
}

/** Changes some settings in this tab (and its storage); listeners hear of it. */
export function setVoiceSettings(change: Partial<VoiceSettings>): VoiceSettings {
  current = toVoiceSettings({ ...current, ...change });
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(current));
  } catch {
    // Kept for this page only.
  }
  for (const listener of [...listeners]) listener();
  return current;
}

/** Applies the settings a profile brought (sign-in, session restore); nothing when it has none. */
export function applyProfileVoiceSettings(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const next = toVoiceSettings(value);
  if (JSON.stringify(next) !== JSON.stringify(current)) setVoiceSettings(next);
}

export function subscribeVoiceSettings(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const KEY_NAMES: Readonly<Record<string, string>> = {
  Backquote: '`',
  Space: 'Space',
  Minus: '-',
  Equal: '=',
  BracketLeft: '[',
  BracketRight: ']',
  Backslash: '\\',
  Semicolon: ';',
  Quote: "'",
  Comma: ',',
  Period: '.',
  Slash: '/',
};

/** A KeyboardEvent.code as a person reads it on the key: `Backquote` → "`", `KeyV` → "V". */
export function keyLabel(code: string): string {
  const named = KEY_NAMES[code];
  if (named) return named;
  const match = /^(?:Key|Digit|Numpad)(.+)$/.exec(code);
  return match?.[1] ?? code;
}
