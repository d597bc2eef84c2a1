/** Request schemas of the /users profile routes; the rules come from protocol. */
import {
  isLanguageCode,
  isStockAvatarId,
  isTheme,
  type LanguageCode,
  LIMITS,
  type StockAvatarId,
  type Theme,
} from '@voice/protocol';
import { z } from 'zod';

const displayName = z
  .string({ error: 'Display name must be a string' })
  .trim()
  .min(LIMITS.displayNameMin, `Display name must be at least ${LIMITS.displayNameMin} characters`)
  .max(LIMITS.displayNameMax, `Display name must be at most ${LIMITS.displayNameMax} characters`);

/**
 * PUT /users/profile. Unknown fields are ignored, as on every route (so `username` and
 * `email`, which cannot change, are dropped), but at least one known field must be there.
 */
export const updateProfileSchema = z
  .object({
    display_name: displayName.optional(),
    language: z.custom<LanguageCode>(isLanguageCode, { message: 'Unsupported language' }).optional(),
    theme: z.custom<Theme>(isTheme, { message: 'Theme must be dark or light' }).optional(),
    avatar: z.custom<StockAvatarId>(isStockAvatarId, { message: 'Unknown stock avatar' }).optional(),
    completeOnboarding: z.literal(true, { error: 'completeOnboarding must be true' }).optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'Nothing to update: send display_name, language, theme, avatar or completeOnboarding',
  });
