/** Request schemas of the auth routes; the rules come from protocol/validation. */
import {
  type CheckUsernameRequest,
  type ForgotPasswordRequest,
  isLanguageCode,
  isValidEmail,
  type LanguageCode,
  LIMITS,
  type LoginRequest,
  passwordProblem,
  type ResetPasswordRequest,
  usernameProblem,
} from '@voice/protocol';
import { z } from 'zod';

const USERNAME_MESSAGES = {
  too_short: `Username must be at least ${LIMITS.usernameMin} characters`,
  too_long: `Username must be at most ${LIMITS.usernameMax} characters`,
  invalid_characters: 'Username may contain only letters, numbers and underscores',
} as const;

const PASSWORD_MESSAGES = {
  too_short: `Password must be at least ${LIMITS.passwordMin} characters`,
  too_long: `Password must be at most ${LIMITS.passwordMax} characters`,
} as const;

const required = (name: string) => ({ error: `${name} is required` });

const username = z.string(required('Username')).superRefine((value, ctx) => {
  const problem = usernameProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: USERNAME_MESSAGES[problem] });
});

const email = z.string(required('Email')).trim().refine(isValidEmail, { message: 'Email must be valid' });

const password = z.string(required('Password')).superRefine((value, ctx) => {
  const problem = passwordProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: PASSWORD_MESSAGES[problem] });
});

const displayName = z
  .string()
  .trim()
  .min(LIMITS.displayNameMin, `Display name must be at least ${LIMITS.displayNameMin} characters`)
  .max(LIMITS.displayNameMax, `Display name must be at most ${LIMITS.displayNameMax} characters`);

const language = z.custom<LanguageCode>(isLanguageCode, { message: 'Unsupported language' });

export const registerSchema = z.object({
  username,
  email,
  password,
  // An empty display name at sign-up means "not given".
  displayName: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    displayName.optional(),
  ),
  acceptTerms: z.boolean(required('acceptTerms')),
  language: language.optional(),
});

export const loginSchema = z.object({
  username: z.string(required('Username')).min(1, 'Please fill in all fields').max(LIMITS.emailMax),
  password: z.string(required('Password')).min(1, 'Please fill in all fields').max(LIMITS.passwordMax),
}) satisfies z.ZodType<LoginRequest>;

export const checkUsernameSchema = z.object({
  username: z.string(required('Username')).max(256),
}) satisfies z.ZodType<CheckUsernameRequest>;

export const forgotPasswordSchema = z.object({ email }) satisfies z.ZodType<ForgotPasswordRequest>;

// Tokens are 32 random bytes in base64url: 43 characters.
export const resetTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export const resetPasswordSchema = z.object({
  token: z.string(required('token')).min(1).max(256),
  password,
  confirmPassword: z.string(required('confirmPassword')).max(LIMITS.passwordMax),
}) satisfies z.ZodType<ResetPasswordRequest>;
