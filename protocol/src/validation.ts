/** Field rules shared by the forms and the API (SPEC.md section 5). */
import type { UsernameUnavailableReason } from './api.ts';
import { LIMITS, USERNAME_PATTERN } from './constants.ts';
import { ROOM_LIMITS } from './rooms.ts';

/** Why a username is malformed, or null when it is well formed. */
export function usernameProblem(username: string): Exclude<UsernameUnavailableReason, 'taken'> | null {
  if (username.length < LIMITS.usernameMin) return 'too_short';
  if (username.length > LIMITS.usernameMax) return 'too_long';
  if (!USERNAME_PATTERN.test(username)) return 'invalid_characters';
  return null;
}

// One @, no spaces, a dot in the domain: what browsers' type=email accepts, minus single-label domains.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function isValidEmail(email: string): boolean {
  return email.length <= LIMITS.emailMax && EMAIL_PATTERN.test(email);
}

export type PasswordProblem = 'too_short' | 'too_long';

export function passwordProblem(password: string): PasswordProblem | null {
  if (password.length < LIMITS.passwordMin) return 'too_short';
  if (password.length > LIMITS.passwordMax) return 'too_long';
  return null;
}

// One segmenter for every count; grapheme boundaries do not depend on the locale.
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * How many characters a person sees in `text`: grapheme clusters, so a family emoji or a
 * letter written with combining accents counts as one (String.length counts UTF-16 units).
 */
export function visibleLength(text: string): number {
  let count = 0;
  for (const _ of graphemes.segment(text)) count++;
  return count;
}

/** Whether a room name (already trimmed) is longer than the spec's 100 characters allow. */
export function roomNameTooLong(name: string): boolean {
  const codePoints = [...name].length;
  return codePoints > ROOM_LIMITS.nameMaxCodePoints || visibleLength(name) > ROOM_LIMITS.nameMax;
}
