/**
 * Voice settings (issue 19, item 5): how your microphone is sent, kept in the profile so they
 * follow you to another browser. The devices chosen are this browser's own (local storage).
 */

export const INPUT_MODES = ['voice', 'push-to-talk'] as const;
export type InputMode = (typeof INPUT_MODES)[number];

export interface VoiceSettings {
  /** Voice activity (the gate below decides) or push-to-talk (a held key). */
  inputMode: InputMode;
  /** KeyboardEvent.code of the push-to-talk key. */
  pushToTalkKey: string;
  /** Voice activity: the level (dBFS) below which nothing is sent; null sends everything. */
  sensitivityDb: number | null;
  /** RNNoise in an AudioWorklet. */
  noiseSuppression: boolean;
  echoCancellation: boolean;
  autoGainControl: boolean;
}

export const VOICE_DEFAULTS: VoiceSettings = {
  inputMode: 'voice',
  pushToTalkKey: 'Backquote',
  sensitivityDb: null,
  noiseSuppression: true,
  echoCancellation: true,
  autoGainControl: true,
};

export const VOICE_LIMITS = {
  /** After the push-to-talk key is released, the microphone stays open this long. */
  pushToTalkTailMs: 200,
  sensitivityMinDb: -100,
  sensitivityMaxDb: 0,
  /** A KeyboardEvent.code is short ASCII: letters, digits, no spaces. */
  keyCodeMaxLength: 32,
} as const;
