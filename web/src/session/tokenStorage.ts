/** The auth token in localStorage (SPEC section 4: signed in while a token is stored). */
import { STORAGE_KEYS } from '@voice/protocol';

// Storage can throw (privacy modes, disabled storage); a missing token is the safe answer then.
export function getToken(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEYS.token);
  } catch {
    return null;
  }
}

export function setToken(token: string): void {
  try {
    localStorage.setItem(STORAGE_KEYS.token, token);
  } catch (error) {
    console.warn('Could not store the session token', error);
  }
}

export function clearToken(): void {
  try {
    localStorage.removeItem(STORAGE_KEYS.token);
  } catch {
    // Nothing stored, nothing to clear.
  }
}
