/** The display-name rule (SPEC section 5): required where asked for, LIMITS.displayNameMin characters or more. */
import { LIMITS } from '@voice/protocol';

/** Interpolation values for the messages below. */
export const NAME_LIMITS = { min: LIMITS.displayNameMin, max: LIMITS.displayNameMax };

/** The translation key of what is wrong with an already trimmed name, or null. */
export function displayNameProblemKey(name: string): string | null {
  if (!name) return 'profile.nameRequired';
  // Counted in characters as people see them, not UTF-16 units ("李明" is two).
  const length = Array.from(name).length;
  if (length < LIMITS.displayNameMin || length > LIMITS.displayNameMax) return 'profile.nameRules';
  return null;
}
