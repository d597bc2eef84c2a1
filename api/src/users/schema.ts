/** Request schemas of the /users profile routes; the rules come from protocol. */
import {
  INPUT_MODES,
  isLanguageCode,
  isStockAvatarId,
  isTheme,
  type LanguageCode,
  LIMITS,
  type StockAvatarId,
  type Theme,
  VOICE_LIMITS,
} from '@voice/protocol';
import { z } from 'zod';

const displayName = z
  .string({ error: 'Display name must be a string' })
  .trim()
  .min(LIMITS.displayNameMin, `Display name must be at least ${LIMITS.displayNameMin} characters`)
  .max(LIMITS.displayNameMax, `Display name must be at most ${LIMITS.displayNameMax} characters`);

/** The whole of a person's voice settings (protocol's VoiceSettings), every field given. */
const voiceSettings = z.strictObject(
  {
    inputMode: z.enum(INPUT_MODES, { error: 'Input mode must be voice or push-to-talk' }),
    pushToTalkKey: z
      .string({ error: 'The push-to-talk key must be a key code' })
      .regex(/^[A-Za-z0-9]+$/, 'The push-to-talk key must be a key code such as Backquote or KeyV')
      .max(
        VOICE_LIMITS.keyCodeMaxLength,
        'The push-to-talk key must be a key code such as Backquote or KeyV',
      ),
    sensitivityDb: z
      .number({ error: 'Sensitivity must be a number of dB or null' })
      .min(
        VOICE_LIMITS.sensitivityMinDb,
        `Sensitivity must be between ${VOICE_LIMITS.sensitivityMinDb} and ${VOICE_LIMITS.sensitivityMaxDb} dB`,
      )
      .max(
        VOICE_LIMITS.sensitivityMaxDb,
        `Sensitivity must be between ${VOICE_LIMITS.sensitivityMinDb} and ${VOICE_LIMITS.sensitivityMaxDb} dB`,
      )
      .nullable(),
    noiseSuppression: z.boolean({ error: 'noiseSuppression must be true or false' }),
    echoCancellation: z.boolean({ error: 'echoCancellation must be true or false' }),
    autoGainControl: z.boolean({ error: 'autoGainControl must be true or false' }),
  },
  {
    error:
      'Voice settings must be an object with inputMode, pushToTalkKey, sensitivityDb, noiseSuppression, echoCancellation and autoGainControl',
  },
);

/**
 * PUT /users/profile. Unknown fields are ignored, as on every route (so `username` and
 * `email`, which cannot change, are dropped), but at least one known field must be there.
 */
export const updateProfileSchema = z
  .object({
    display_name: displayName.optional(),
    language: z.custom<LanguageCode>(isLanguageCode, { message: 'Unsupported language' }).optional(),
    theme: z.custom<Theme>(isTheme, { message: 'Theme must be dark or light' }).optional(),
    voice_settings: voiceSettings.optional(),
    avatar: z.custom<StockAvatarId>(isStockAvatarId, { message: 'Unknown stock avatar' }).optional(),
    completeOnboarding: z.literal(true, { error: 'completeOnboarding must be true' }).optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message:
      'Nothing to update: send display_name, language, theme, voice_settings, avatar or completeOnboarding',
  });
