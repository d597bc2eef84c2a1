/**
 * The signed-in user (SPEC section 4 "Session"): restored from a stored token at start-up
 * behind the full-screen loader, cleared on logout and on any 401. Restoring or signing in
 * applies the theme kept in the profile, as the language provider does with the language.
 */
import { type AuthResponse, NOTIFICATIONS, type User } from '@voice/protocol';
import { createContext, type ReactNode, useCallback, useEffect, useMemo, useState } from 'react';
import { authApi } from '../api/auth.ts';
import { NETWORK_RETRY, onUnauthorized } from '../api/client.ts';
import { profileApi } from '../api/profile.ts';
import { withRetry } from '../lib/retry.ts';
import { applyProfileVoiceSettings } from '../media/voiceSettings.ts';
import { unsubscribePush } from '../notifications/push.ts';
import { applyProfileTheme, currentTheme } from '../theme/theme.ts';
import { FullScreenLoader } from '../ui/FullScreenLoader.tsx';
import { clearToken, getToken, setToken } from './tokenStorage.ts';

/** What the app knows about the session. */
export type SessionStatus = 'restoring' | 'anonymous' | 'authenticated';

export interface SessionValue {
  status: SessionStatus;
  user: User | null;
  /**
   * Stores the token of a successful login or registration. A login applies the profile's
   * theme; a new account instead keeps the theme chosen before signing up, and saves it.
   */
  signIn(auth: AuthResponse, options?: { newAccount?: boolean }): void;
  /** Logs out on the server; the local session ends whatever the server answers. */
  signOut(): Promise<void>;
  /** Reloads the profile from the server. */
  refresh(): Promise<void>;
  /** Takes a fresher copy of the signed-in user's profile, e.g. the answer of a profile update. */
  updateUser(user: User): void;
  /** Changes some fields of the signed-in user's profile (when `userId` is theirs), e.g. from a live event. */
  patchUser(userId: string, change: Partial<User>): void;
}

export const SessionContext = createContext<SessionValue | null>(null);

interface Props {
  children: ReactNode;
  /** Called after a 401 ended the session, to send the user to /login; keep it stable. */
  onExpired: () => void;
}

export function SessionProvider({ children, onExpired }: Props) {
  const [status, setStatus] = useState<SessionStatus>(() => (getToken() ? 'restoring' : 'anonymous'));
  const [user, setUser] = useState<User | null>(null);

  const endLocally = useCallback(() => {
    clearToken();
    setUser(null);
    setStatus('anonymous');
  }, []);

  useEffect(
    () =>
      onUnauthorized(() => {
        endLocally();
        onExpired();
      }),
    [endLocally, onExpired],
  );

  // Restore: a stored token is only trusted once the server accepts it; failure is silent.
  // An unreachable server is asked again (RETRY) before the token goes: a request cut off by
  // a reload looks just like that, and must not sign the user out.
  useEffect(() => {
    if (!getToken()) return;
    const controller = new AbortController();
    withRetry(() => authApi.me(controller.signal), NETWORK_RETRY).then(
      ({ user: restored }) => {
        applyProfileTheme(restored.theme);
        applyProfileVoiceSettings(restored.voice_settings);
        setUser(restored);
        setStatus('authenticated');
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        console.debug('Session restore failed', error);
        endLocally();
      },
    );
    return () => controller.abort();
  }, [endLocally]);

  const signIn = useCallback((auth: AuthResponse, { newAccount = false } = {}) => {
    setToken(auth.token);
    setUser(auth.user);
    setStatus('authenticated');
    if (!newAccount) {
      applyProfileTheme(auth.user.theme);
      applyProfileVoiceSettings(auth.user.voice_settings);
      return;
    }
    const theme = currentTheme();
    if (auth.user.theme === theme) return;
    profileApi.update({ theme }).then(
      ({ user: saved }) => setUser((current) => (current && current.id === saved.id ? saved : current)),
      (error: unknown) => console.debug('Theme could not be saved to the new profile', error),
    );
  }, []);

  const signOut = useCallback(async () => {
    // The API stops pushing to this browser before the token goes; a slow answer does not hold up logout.
    try {
      const gaveUp = new Promise<void>((resolve) => setTimeout(resolve, NOTIFICATIONS.setupTimeoutMs));
      await Promise.race([unsubscribePush(), gaveUp]);
    } catch (error) {
      console.info('The push subscription could not be removed before logout', error);
    }
    try {
      await authApi.logout();
    } catch (error) {
      console.warn('Logout request failed; the local session ends anyway', error);
    } finally {
      endLocally();
    }
  }, [endLocally]);

  const refresh = useCallback(async () => {
    if (!getToken()) return;
    const { user: fresh } = await authApi.me();
    setUser(fresh);
  }, []);

  // Only for the same account: an answer arriving after a logout must not bring the session back.
  const updateUser = useCallback((fresh: User) => {
    setUser((current) => (current && current.id === fresh.id ? fresh : current));
  }, []);

  const patchUser = useCallback((userId: string, change: Partial<User>) => {
    setUser((current) => (current && current.id === userId ? { ...current, ...change } : current));
  }, []);

  // Revalidate when the user comes back to the tab: picks up profile changes and, through the
  // client's 401 handling, ends a session that was revoked elsewhere.
  useEffect(() => {
    if (status !== 'authenticated') return;
    let inFlight = false;
    const revalidate = () => {
      if (inFlight || document.visibilityState !== 'visible') return;
      inFlight = true;
      refresh()
        .catch((error: unknown) => console.debug('Profile refresh failed', error))
        .finally(() => {
          inFlight = false;
        });
    };
    window.addEventListener('focus', revalidate);
    document.addEventListener('visibilitychange', revalidate);
    return () => {
      window.removeEventListener('focus', revalidate);
      document.removeEventListener('visibilitychange', revalidate);
    };
  }, [status, refresh]);

  const value = useMemo<SessionValue>(
    () => ({ status, user, signIn, signOut, refresh, updateUser, patchUser }),
    [status, user, signIn, signOut, refresh, updateUser, patchUser],
  );

  return (
    <SessionContext.Provider value={value}>
      {status === 'restoring' ? <FullScreenLoader /> : children}
    </SessionContext.Provider>
  );
}
