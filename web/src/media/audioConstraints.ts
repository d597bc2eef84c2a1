/** Capture constraints (SPEC section 9), as getUserMedia takes them. */
import {
  ALT_AUDIO_CONSTRAINTS,
  ALT_AUDIO_NON_SAFARI,
  CALL_AUDIO_CONSTRAINTS,
  PROBE_AUDIO_CONSTRAINTS,
  type VoiceSettings,
} from '@voice/protocol';

/** Which constraints a call's capture asks for: the spec's call set, or its alternative path. */
export type CaptureVariant = 'call' | 'alternative';

/**
 * Audio constraints, with `latency`: browsers still read it, TypeScript's DOM types dropped it.
 */
export type AudioConstraints = MediaTrackConstraints & { latency?: number };

/** Mono 44100 Hz with echo cancellation, noise suppression and auto gain. */
export function callAudioConstraints(): AudioConstraints {
  return { ...CALL_AUDIO_CONSTRAINTS };
}

/**
 * 48000 Hz mono with the same processing; browsers other than Safari also get 10 ms latency
 * and 16-bit samples (the spec's browser-specific path leaves both out for Safari).
 */
export function alternativeAudioConstraints(safari: boolean): AudioConstraints {
  return safari ? { ...ALT_AUDIO_CONSTRAINTS } : { ...ALT_AUDIO_CONSTRAINTS, ...ALT_AUDIO_NON_SAFARI };
}

/** The trial capture that asks for permission: 8000 Hz, processing off, released at once. */
export function probeAudioConstraints(): AudioConstraints {
  return { ...PROBE_AUDIO_CONSTRAINTS };
}

/** The browser's own processing of a capture, as the voice settings switch it. */
export type AudioProcessing = Pick<
  VoiceSettings,
  'echoCancellation' | 'noiseSuppression' | 'autoGainControl'
>;

/**
 * The constraints of a call capture variant, with the person's processing switches (all on by
 * default, as the spec's sets have them). Noise suppression off turns the browser's own off too:
 * off means the voice as the microphone hears it.
 */
export function captureConstraints(
  variant: CaptureVariant,
  safari: boolean,
  processing?: AudioProcessing,
): AudioConstraints {
  const constraints = variant === 'call' ? callAudioConstraints() : alternativeAudioConstraints(safari);
  if (!processing) return constraints;
  return {
    ...constraints,
    echoCancellation: processing.echoCancellation,
    noiseSuppression: processing.noiseSuppression,
    autoGainControl: processing.autoGainControl,
  };
}
