/**
 * The interface language (SPEC section 4, "Language initialisation" and "Language change"):
 * initialised once the session is known, then changed by the user. Children render once
 * it is initialised, so no screen flashes in a language it is about to leave.
 */
import { isLanguageCode, LANGUAGES, type LanguageCode } from '@voice/protocol';
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { authApi } from '../api/auth.ts';
import { profileApi } from '../api/profile.ts';
import { getToken } from '../session/tokenStorage.ts';
import { useSession } from '../session/useSession.ts';
import { FullScreenLoader } from '../ui/FullScreenLoader.tsx';
import { browserDetectionSources, browserLanguageStorage } from './browserEnvironment.ts';
import { applyLanguage, currentLanguage, onLanguageChanged } from './i18n.ts';
import { LanguageContext, type LanguageValue } from './LanguageContext.ts';
import {
  changeLanguageWith,
  initialiseLanguage,
  type LanguageInitResult,
  storeLanguage,
} from './languageInit.ts';

const log = (message: string, error: unknown) => console.debug(message, error);

export function LanguageProvider({ children }: { children: ReactNode }) {
  const { user, updateUser } = useSession();
  const [language, setLanguage] = useState<LanguageCode>(currentLanguage);
  const [isChanging, setIsChanging] = useState(false);
  const [initialisation, setInitialisation] = useState<LanguageInitResult | null>(null);
  // The session restore already asked the server for the profile: initialisation reuses it.
  const [startupUser] = useState(user);
  const knownUserId = useRef(user?.id ?? null);

  useEffect(() => onLanguageChanged(() => setLanguage(currentLanguage())), []);

  const saveLanguage = useCallback(
    async (code: LanguageCode) => {
      const { user: saved } = await profileApi.update({ language: code });
      updateUser(saved);
    },
    [updateUser],
  );

  useEffect(() => {
    let cancelled = false;
    initialiseLanguage({
      hasToken: getToken() !== null,
      fetchProfile: async () => startupUser ?? (await authApi.me()).user,
      storage: browserLanguageStorage,
      environment: browserDetectionSources(),
      apply: applyLanguage,
      saveLanguage,
      log,
    }).then((result) => {
      if (!cancelled) setInitialisation(result);
    });
    return () => {
      cancelled = true;
    };
  }, [startupUser, saveLanguage]);

  // Signing in on this device brings the language saved in that account's profile.
  useEffect(() => {
    const id = user?.id ?? null;
    if (id === knownUserId.current) return;
    knownUserId.current = id;
    if (!user || !initialisation || !isLanguageCode(user.language)) return;
    const code = user.language;
    applyLanguage(code).then(
      () => storeLanguage(browserLanguageStorage, code),
      (error: unknown) => log('Profile language could not be applied', error),
    );
  }, [user, initialisation]);

  const changeLanguage = useCallback(
    async (code: string) => {
      setIsChanging(true);
      try {
        await changeLanguageWith(code, {
          hasToken: () => getToken() !== null,
          storage: browserLanguageStorage,
          apply: applyLanguage,
          saveLanguage,
          log,
        });
      } catch (error) {
        console.warn('Language change failed', error);
      } finally {
        setIsChanging(false);
      }
    },
    [saveLanguage],
  );

  const value = useMemo<LanguageValue>(
    () => ({
      language,
      languages: LANGUAGES,
      changeLanguage,
      isChanging,
      isInitialised: initialisation !== null,
      initialisation,
    }),
    [language, changeLanguage, isChanging, initialisation],
  );

  return (
    <LanguageContext.Provider value={value}>
      {initialisation ? children : <FullScreenLoader />}
    </LanguageContext.Provider>
  );
}
