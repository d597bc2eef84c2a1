import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client.ts';
import {
  EMPTY_REGISTRATION,
  fieldOfError,
  type RegisterValues,
  validateRegistration,
} from './registerForm.ts';

const valid: RegisterValues = {
  username: 'ann_archer',
  email: ' ann@voice.test ',
  password: 'secret-1',
  confirmPassword: 'secret-1',
  displayName: '',
  acceptTerms: true,
};

describe('validateRegistration()', () => {
  it('accepts a complete form; the display name is optional', () => {
    expect(validateRegistration(valid, { state: 'available' })).toEqual({});
    expect(validateRegistration(valid, { state: 'unknown' })).toEqual({});
  });

  it('asks for every required field of an empty form, terms included', () => {
    expect(validateRegistration(EMPTY_REGISTRATION, { state: 'idle' })).toEqual({
      username: 'auth.required',
      email: 'auth.required',
      password: 'auth.required',
      confirmPassword: 'auth.required',
      acceptTerms: 'errors.TERMS_NOT_ACCEPTED',
    });
  });

  it('applies the spec rules: username, email, password length and match, display name length', () => {
    const errors = validateRegistration(
      {
        username: 'ab',
        email: 'not-an-email',
        password: 'short',
        confirmPassword: 'other',
        displayName: 'A',
        acceptTerms: true,
      },
      { state: 'idle' },
    );
    expect(errors).toEqual({
      username: 'auth.username.tooShort',
      email: 'auth.email.invalid',
      password: 'auth.password.tooShort',
      confirmPassword: 'errors.PASSWORDS_DO_NOT_MATCH',
      displayName: 'auth.displayName.rules',
    });
  });

  it('reports a username the live check found taken', () => {
    expect(validateRegistration(valid, { state: 'unavailable', reason: 'taken' })).toEqual({
      username: 'errors.USERNAME_TAKEN',
    });
  });
});

describe('fieldOfError()', () => {
  it('places server refusals on their field', () => {
    expect(fieldOfError(new ApiError(409, 'USERNAME_TAKEN', 'x'))).toBe('username');
    expect(fieldOfError(new ApiError(409, 'EMAIL_TAKEN', 'x'))).toBe('email');
    expect(fieldOfError(new ApiError(400, 'VALIDATION', 'x', 'displayName'))).toBe('displayName');
  });

  it('leaves other failures to the form alert', () => {
    expect(fieldOfError(new ApiError(400, 'VALIDATION', 'x', 'language'))).toBeNull();
    expect(fieldOfError(new ApiError(429, 'RATE_LIMITED', 'x'))).toBeNull();
    expect(fieldOfError(new Error('boom'))).toBeNull();
  });
});
