/** The sign-up form's values and their checks (SPEC section 5), apart from how they are shown. */
import { isValidEmail, LIMITS, usernameProblem } from '@voice/protocol';
import { ApiError } from '../../api/client.ts';
import { newPasswordProblems, USERNAME_REASON_KEYS } from './fieldMessages.ts';
import type { UsernameAvailability } from './useUsernameAvailability.ts';

/** The fields in form order: focus goes to the first one with an error. */
export const FIELD_ORDER = [
  'username',
  'email',
  'password',
  'confirmPassword',
  'displayName',
  'acceptTerms',
] as const;
export type Field = (typeof FIELD_ORDER)[number];
/** Translation keys of the problems, by field. */
export type FieldErrors = Partial<Record<Field, string>>;

export interface RegisterValues {
  username: string;
  email: string;
  password: string;
  confirmPassword: string;
  /** Optional at sign-up. */
  displayName: string;
  acceptTerms: boolean;
}

export const EMPTY_REGISTRATION: RegisterValues = {
  username: '',
  email: '',
  password: '',
  confirmPassword: '',
  displayName: '',
  acceptTerms: false,
};

/** What is wrong with `values` before they are sent; empty when nothing is. */
export function validateRegistration(
  values: RegisterValues,
  availability: UsernameAvailability,
): FieldErrors {
  const { username, email, password, confirmPassword, displayName, acceptTerms } = values;
  const errors: FieldErrors = {};
  const usernameIssue = usernameProblem(username);
  if (!username) errors.username = 'auth.required';
  else if (usernameIssue) errors.username = USERNAME_REASON_KEYS[usernameIssue];
  else if (availability.state === 'unavailable') errors.username = USERNAME_REASON_KEYS[availability.reason];
  if (!email.trim()) errors.email = 'auth.required';
  else if (!isValidEmail(email.trim())) errors.email = 'auth.email.invalid';
  Object.assign(errors, newPasswordProblems(password, confirmPassword));
  const name = displayName.trim();
  if (name && (name.length < LIMITS.displayNameMin || name.length > LIMITS.displayNameMax)) {
    errors.displayName = 'auth.displayName.rules';
  }
  if (!acceptTerms) errors.acceptTerms = 'errors.TERMS_NOT_ACCEPTED';
  return errors;
}

const SERVER_CODE_FIELDS: Record<string, Field> = {
  USERNAME_TAKEN: 'username',
  EMAIL_TAKEN: 'email',
  PASSWORDS_DO_NOT_MATCH: 'confirmPassword',
  TERMS_NOT_ACCEPTED: 'acceptTerms',
};

function isField(name: string | null): name is Field {
  return name !== null && (FIELD_ORDER as readonly string[]).includes(name);
}

/** The form field a server error belongs to, if any. */
export function fieldOfError(error: unknown): Field | null {
  if (!(error instanceof ApiError)) return null;
  const byCode = SERVER_CODE_FIELDS[error.code ?? ''];
  if (byCode) return byCode;
  return error.code === 'VALIDATION' && isField(error.field) ? error.field : null;
}
