/** Profile bodies (SPEC.md section 7): PUT /users/profile, GET /users/{id}, POST /users/avatar. */
import type { User } from './api.ts';
import type { StockAvatarId } from './avatars.ts';
import type { Theme } from './constants.ts';
import type { LanguageCode } from './languages.ts';
import { paramRoute } from './routes.ts';
import type { VoiceSettings } from './voice.ts';

/**
 * PUT /users/profile: at least one field. Unknown fields are ignored (username and
 * email cannot be changed). Answers `UserResponse` with the own profile.
 */
export interface UpdateProfileRequest {
  /** Trimmed, LIMITS.displayNameMin to displayNameMax characters. Setting it completes onboarding. */
  display_name?: string;
  /** One of LANGUAGE_CODES; anything else is refused with 400 VALIDATION (field `language`). */
  language?: LanguageCode;
  /** One of THEMES; anything else is refused with 400 VALIDATION (field `theme`). */
  theme?: Theme;
  /** The whole of the voice settings; a malformed field is refused with 400 VALIDATION (field `voice_settings`). */
  voice_settings?: VoiceSettings;
  /** A stock avatar id; replaces the current avatar, uploaded photos included. */
  avatar?: StockAvatarId;
  /** Finishes onboarding without changing anything else (the avatar step may be skipped). */
  completeOnboarding?: true;
}

/** A single profile: the own one (with email) or another user's (GET /users/{id}, without). */
export interface UserResponse {
  user: User;
}

/**
 * POST /users/avatar, multipart/form-data with the file in field AVATAR_UPLOAD.field.
 * Errors: 400 INVALID_IMAGE, 413 IMAGE_TOO_LARGE, 422 IMAGE_PROCESSING_FAILED.
 */
export interface UploadAvatarResponse {
  avatar_url: string;
}

/**
 * DELETE /users/me: removes your account for good (friendships, requests and sessions go
 * with it; open sockets close; friends get `friend-removed`). Answers 204 with no body.
 * Errors: 400 VALIDATION (no password), 403 WRONG_PASSWORD (not 401, which would sign you
 * out for a typo), 429 RATE_LIMITED.
 */
export interface RemoveAccountRequest {
  /** Your current password, to confirm. */
  password: string;
}

export const PROFILE_ROUTES = {
  profile: '/users/profile',
  avatar: '/users/avatar',
  removeAccount: '/users/me',
  user: paramRoute('/users/:id'),
} as const;
