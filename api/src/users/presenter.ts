/** Builds the `user` JSON of every response, and the short summaries in events, from a row. */
import { type User, type UserSummary, VOICE_DEFAULTS } from '@voice/protocol';
import type { UserRow } from './UserRepository.ts';

/** Live state that is not stored in the row; null when it cannot be known now. */
export interface Presence {
  isOnline: boolean | null;
  isInCall: boolean | null;
}

const OFFLINE: Presence = { isOnline: false, isInCall: false };

/** `self` adds the private fields (email, onboarding, theme, voice settings) that only the owner sees. */
export function presentUser(row: UserRow, { self = false, presence = OFFLINE } = {}): User {
  return {
    id: row.id,
    username: row.username,
    ...(self ? { email: row.email } : {}),
    display_name: row.display_name,
    avatar_url: row.avatar_url,
    language: row.language,
    is_online: presence.isOnline,
    last_seen: row.last_seen ? row.last_seen.toISOString() : null,
    isInCall: presence.isInCall,
    ...(self
      ? {
          onboarding_completed: row.onboarded_at !== null,
          theme: row.theme,
          // Null until the person saves some: each browser then keeps its own.
          voice_settings: row.voice_settings ? { ...VOICE_DEFAULTS, ...row.voice_settings } : null,
        }
      : {}),
  };
}

/** The person as events name them (a caller, a friend request's sender): public fields only. */
export const summarize = (row: UserRow): UserSummary => ({
  id: row.id,
  username: row.username,
  display_name: row.display_name,
  avatar_url: row.avatar_url,
});
