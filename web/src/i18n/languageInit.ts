/**
 * Language initialisation and change (SPEC section 4), free of the browser and of React:
 * everything they touch comes in as a dependency, so each branch is unit-tested.
 */
import { DEFAULT_LANGUAGE, isLanguageCode, type LanguageCode, STORAGE_KEYS } from '@voice/protocol';
import { type Detection, type DetectionEnvironment, detectLanguage } from './detectLanguage.ts';

/** The part of `Storage` the language needs; reads and writes may throw (privacy modes). */
export type LanguageStorage = Pick<Storage, 'getItem' | 'setItem'>;

/** What initialisation reads and calls. */
export interface LanguageInitDeps {
  /** A session token is stored: the user counts as signed in. */
  hasToken: boolean;
  /** The signed-in user's profile (GET /auth/me). */
  fetchProfile: () => Promise<{ language?: unknown }>;
  /** Local storage, where the choice is kept under STORAGE_KEYS.language. */
  storage: LanguageStorage;
  /** Everything detection reads except local storage, which comes from `storage`. */
  environment: Omit<DetectionEnvironment, 'localStorage'>;
  /** Makes `code` the interface language; rejects when its translations cannot be loaded. */
  apply: (code: LanguageCode) => Promise<void>;
  /** Saves the language to the profile (PUT /users/profile). */
  saveLanguage: (code: LanguageCode) => Promise<unknown>;
  /** Where silent failures are reported. */
  log?: (message: string, error: unknown) => void;
}

/** Which rule chose the language. */
export type LanguageInitSource = 'profile' | 'storage' | 'detection' | 'default';

/** The outcome of initialisation, shown on the language test page. */
export interface LanguageInitResult {
  language: LanguageCode;
  source: LanguageInitSource;
  /** Set when detection ran. */
  detection: Detection | null;
  /** Whether a detected language was saved to the profile. */
  savedToProfile: boolean;
  /** Whether loading the profile failed. */
  profileFailed: boolean;
}

export function readStoredLanguage(storage: LanguageStorage): string | null {
  try {
    return storage.getItem(STORAGE_KEYS.language);
  } catch {
    return null;
  }
}

export function storeLanguage(storage: LanguageStorage, code: LanguageCode): void {
  try {
    storage.setItem(STORAGE_KEYS.language, code);
  } catch {
    // The choice then lasts for this page only.
  }
}

const silent = () => {};

/**
 * Chooses the start-up language: the profile's (signed in), else the stored one, else
 * the detected one (stored, and saved to the profile when signed in and not ru). When the
 * profile cannot be loaded the stored language or ru is used (SPEC section 8); any other
 * failure falls back to ru.
 */
export async function initialiseLanguage(deps: LanguageInitDeps): Promise<LanguageInitResult> {
  const log = deps.log ?? silent;
  const result = (
    language: LanguageCode,
    source: LanguageInitSource,
    extra: Partial<LanguageInitResult>,
  ) => ({
    language,
    source,
    detection: null,
    savedToProfile: false,
    profileFailed: false,
    ...extra,
  });
  let profileFailed = false;
  try {
    if (deps.hasToken) {
      let profileLanguage: unknown = null;
      try {
        profileLanguage = (await deps.fetchProfile()).language;
      } catch (error) {
        log('Profile language could not be loaded', error);
        profileFailed = true;
      }
      if (isLanguageCode(profileLanguage)) {
        await deps.apply(profileLanguage);
        storeLanguage(deps.storage, profileLanguage);
        return result(profileLanguage, 'profile', {});
      }
    }

    const stored = readStoredLanguage(deps.storage);
    if (isLanguageCode(stored)) {
      await deps.apply(stored);
      return result(stored, 'storage', { profileFailed });
    }
    if (profileFailed) {
      await deps.apply(DEFAULT_LANGUAGE);
      return result(DEFAULT_LANGUAGE, 'default', { profileFailed });
    }

    const detection = detectLanguage({ ...deps.environment, localStorage: stored });
    await deps.apply(detection.language);
    storeLanguage(deps.storage, detection.language);
    let savedToProfile = false;
    if (deps.hasToken && detection.language !== DEFAULT_LANGUAGE) {
      try {
        await deps.saveLanguage(detection.language);
        savedToProfile = true;
      } catch (error) {
        log('Detected language could not be saved to the profile', error);
      }
    }
    return result(detection.language, 'detection', { detection, savedToProfile });
  } catch (error) {
    log('Language initialisation failed; using the default language', error);
    try {
      await deps.apply(DEFAULT_LANGUAGE);
    } catch (applyError) {
      log('The default language could not be applied either', applyError);
    }
    return result(DEFAULT_LANGUAGE, 'default', { profileFailed });
  }
}

/** What a language change reads and calls. */
export interface LanguageChangeDeps {
  /** Whether a session token is stored now. */
  hasToken: () => boolean;
  storage: LanguageStorage;
  apply: (code: LanguageCode) => Promise<void>;
  saveLanguage: (code: LanguageCode) => Promise<unknown>;
  log?: (message: string, error: unknown) => void;
}

/**
 * Applies a language the user picked, stores it and, when signed in, saves it to the
 * profile; a failed save is ignored. Invalid codes are ignored. True when applied.
 */
export async function changeLanguageWith(code: unknown, deps: LanguageChangeDeps): Promise<boolean> {
  if (!isLanguageCode(code)) return false;
  await deps.apply(code);
  storeLanguage(deps.storage, code);
  if (deps.hasToken()) {
    try {
      await deps.saveLanguage(code);
    } catch (error) {
      (deps.log ?? silent)('Language could not be saved to the profile', error);
    }
  }
  return true;
}
