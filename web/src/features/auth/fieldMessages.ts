/** Translation keys of field-level problems, shared by the account forms. */
import {
  LIMITS,
  type PasswordProblem,
  passwordProblem,
  type UsernameUnavailableReason,
} from '@voice/protocol';

/** Interpolation values for every message that quotes a limit. */
export const LIMIT_VALUES = {
  usernameMin: LIMITS.usernameMin,
  usernameMax: LIMITS.usernameMax,
  passwordMin: LIMITS.passwordMin,
  passwordMax: LIMITS.passwordMax,
  displayNameMin: LIMITS.displayNameMin,
  displayNameMax: LIMITS.displayNameMax,
};

export const USERNAME_REASON_KEYS: Record<UsernameUnavailableReason, string> = {
  taken: 'errors.USERNAME_TAKEN',
  too_short: 'auth.username.tooShort',
  too_long: 'auth.username.tooLong',
  invalid_characters: 'auth.username.invalidCharacters',
};

export const PASSWORD_PROBLEM_KEYS: Record<PasswordProblem, string> = {
  too_short: 'auth.password.tooShort',
  too_long: 'auth.password.tooLong',
};

/** The problems of a new password and its confirmation (sign-up and reset), as translation keys. */
export function newPasswordProblems(
  password: string,
  confirmPassword: string,
): { password?: string; confirmPassword?: string } {
  const problems: { password?: string; confirmPassword?: string } = {};
  const problem = passwordProblem(password);
  if (!password) problems.password = 'auth.required';
  else if (problem) problems.password = PASSWORD_PROBLEM_KEYS[problem];
  if (!confirmPassword) problems.confirmPassword = 'auth.required';
  else if (confirmPassword !== password) problems.confirmPassword = 'errors.PASSWORDS_DO_NOT_MATCH';
  return problems;
}

/** Message for a server VALIDATION error naming `field`. */
export const INVALID_FIELD_KEYS: Record<string, string> = {
  username: 'auth.username.rules',
  email: 'auth.email.invalid',
  password: 'auth.password.invalid',
  confirmPassword: 'errors.PASSWORDS_DO_NOT_MATCH',
  displayName: 'auth.displayName.rules',
  acceptTerms: 'errors.TERMS_NOT_ACCEPTED',
  token: 'errors.RESET_TOKEN_INVALID',
};
