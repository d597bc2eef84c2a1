/** REST request and response bodies (SPEC.md section 7). Paths are relative to API_BASE. */
import type { Theme } from './constants.ts';
import type { LanguageCode } from './languages.ts';
import type { UserRoom } from './rooms.ts';
import { paramRoute } from './routes.ts';
import type { VoiceSettings } from './voice.ts';

/** A user as the API returns it; `email` only in your own profile. */
export interface User {
  id: string;
  username: string;
  email?: string;
  display_name: string | null;
  avatar_url: string | null;
  language: LanguageCode;
  /** null: unknown, the server cannot tell right now (its Redis does not answer). */
  is_online: boolean | null;
  /** ISO timestamp, or null when never seen. */
  last_seen: string | null;
  /** null: unknown, like `is_online`. */
  isInCall: boolean | null;
  /** Friends only (the friends list, a new friend): the room they are in, or null. */
  room?: UserRoom | null;
  /** Own profile only: true once a display name was set or onboarding was completed. */
  onboarding_completed?: boolean;
  /** Own profile only: the interface theme, kept like the language (default dark). */
  theme?: Theme;
  /** Own profile only: the voice settings; null until saved once (a browser keeps its own then). */
  voice_settings?: VoiceSettings | null;
}

export interface RegisterRequest {
  username: string;
  email: string;
  password: string;
  displayName?: string;
  acceptTerms: boolean;
  /** The interface language at sign-up; defaults to ru. */
  language?: LanguageCode;
}

export interface LoginRequest {
  /** Username or email. */
  username: string;
  password: string;
}

export interface AuthResponse {
  token: string;
  user: User;
}

export interface MeResponse {
  user: User;
}

export interface CheckUsernameRequest {
  username: string;
}

/** Why a username is unavailable. */
export type UsernameUnavailableReason = 'taken' | 'too_short' | 'too_long' | 'invalid_characters';

export interface CheckUsernameResponse {
  available: boolean;
  reason?: UsernameUnavailableReason;
}

export interface ForgotPasswordRequest {
  email: string;
}

export interface ForgotPasswordResponse {
  ok: true;
}

export interface VerifyResetTokenResponse {
  valid: true;
}

export interface ResetPasswordRequest {
  token: string;
  password: string;
  confirmPassword: string;
}

export interface ResetPasswordResponse {
  ok: true;
}

/**
 * `GET /api/health/ready`: 200 when this process can serve requests (the database answers in
 * time with its schema current, Redis answers when configured, and it has listened to the media
 * servers' announcements long enough to know them), else 503 with `notReady`
 * naming the parts that cannot. `GET /api/health` and `/api/health/live` answer whether the
 * process runs at all (`{ok: true}`).
 */
export interface ReadinessResponse {
  ok: boolean;
  /** Each part: `ok`, `not used` (Redis unset), `not checked` (migrations without a database), or why it is not ready. */
  checks: { database: string; migrations: string; redis: string; mediaServers: string };
  /** The parts found not ready (not those `not used` or `not checked`). */
  notReady: Array<'database' | 'migrations' | 'redis' | 'mediaServers'>;
}

/** Route paths (relative to API_BASE). */
export const ROUTES = {
  register: '/auth/register',
  login: '/auth/login',
  me: '/auth/me',
  logout: '/auth/logout',
  forgotPassword: '/auth/forgot-password',
  resetPassword: '/auth/reset-password',
  verifyResetToken: paramRoute('/auth/verify-reset-token/:token'),
  checkUsername: '/auth/check-username',
  health: '/health',
  healthLive: '/health/live',
  healthReady: '/health/ready',
} as const;

/** How a searched user relates to the searcher. */
export type Relationship = 'none' | 'friend' | 'request_sent' | 'request_received';

export interface SearchRequest {
  searchTerm: string;
}

export interface SearchResult extends User {
  relationship: Relationship;
}

export interface SearchResponse {
  users: SearchResult[];
}

export interface FriendsResponse {
  friends: User[];
}

/** A pending request someone sent to you. */
export interface FriendRequest {
  id: string;
  from: { id: string; username: string; display_name: string | null; avatar_url: string | null };
  created_at: string;
}

export interface FriendRequestsResponse {
  requests: FriendRequest[];
}

/** A pending request you sent, newest first; DELETE FRIEND_ROUTES.cancel(to.id) withdraws it. */
export interface SentFriendRequest {
  id: string;
  to: { id: string; username: string; display_name: string | null; avatar_url: string | null };
  created_at: string;
}

/** GET FRIEND_ROUTES.sentRequests. */
export interface SentFriendRequestsResponse {
  requests: SentFriendRequest[];
}

export interface FriendRequestBody {
  userId: string;
}

/** Answer of POST /users/friend-request: `friends` when the other person had asked you already. */
export interface SendFriendRequestResponse {
  status: 'pending' | 'friends';
}

export interface OkResponse {
  ok: true;
}

export const FRIEND_ROUTES = {
  search: '/users/search',
  friends: '/users/friends',
  friendsWithCallStatus: '/users/friends-with-call-status',
  requests: '/users/friend-requests',
  sendRequest: '/users/friend-request',
  accept: '/users/friend-request/accept',
  reject: '/users/friend-request/reject',
  unfriend: paramRoute('/users/friend/:id'),
  /** Requests you sent that are still pending (`SentFriendRequestsResponse`). */
  sentRequests: '/users/friend-requests/sent',
  /**
   * Withdraws your pending request to the user `id` (not a request id): `OkResponse`, or
   * 404 FRIEND_REQUEST_NOT_FOUND when there is none. The recipient's tabs hear
   * `friend-request-cancelled`.
   */
  cancel: paramRoute('/users/friend-request/:id'),
} as const;
