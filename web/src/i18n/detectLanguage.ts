/**
 * Automatic language detection (SPEC section 4): each source the spec lists, read in
 * i18next-browser-languagedetector's order (query string, cookie, local storage, session
 * storage, the browser's languages, the page's <html lang>); the first supported language
 * wins, else English. Pure: the caller reads the browser and passes what it found.
 */
import { DETECTION_FALLBACK_LANGUAGE, isLanguageCode, type LanguageCode } from '@voice/protocol';

/** Query parameter and cookie that may name a language, as in i18next-browser-languagedetector. */
export const DETECTION_KEYS = { query: 'lng', cookie: 'i18next' } as const;

export const DETECTION_SOURCES = [
  'querystring',
  'cookie',
  'localStorage',
  'sessionStorage',
  'navigator',
  'htmlTag',
] as const;
export type DetectionSource = (typeof DETECTION_SOURCES)[number];

/** What detection looks at; every field may be empty. */
export interface DetectionEnvironment {
  /** `location.search`, e.g. `?lng=de`. */
  query: string;
  /** `document.cookie`. */
  cookie: string;
  /** The stored choice (localStorage i18nextLng). */
  localStorage: string | null;
  /** sessionStorage i18nextLng. */
  sessionStorage: string | null;
  /** `navigator.languages`, most preferred first. */
  navigatorLanguages: readonly string[];
  /** The page's `<html lang>` as served, before the app changed it. */
  htmlLang: string | null;
}

/** One source: the values it offered and the supported language they name, if any. */
export interface SourceReading {
  source: DetectionSource;
  values: string[];
  language: LanguageCode | null;
}

/** The outcome of detection: the language and the source that gave it (`fallback`: none did). */
export interface Detection {
  language: LanguageCode;
  source: DetectionSource | 'fallback';
  readings: SourceReading[];
}

/** The supported language for a BCP 47 tag such as `pt-BR`, or null. */
export function toLanguageCode(tag: string): LanguageCode | null {
  const base = tag.trim().toLowerCase().split(/[-_]/)[0];
  return isLanguageCode(base) ? base : null;
}

function cookieValue(cookie: string, name: string): string | null {
  for (const part of cookie.split(';')) {
    const [key, ...rest] = part.split('=');
    if (key?.trim() === name) {
      try {
        return decodeURIComponent(rest.join('=').trim());
      } catch {
        return rest.join('=').trim();
      }
    }
  }
  return null;
}

function valuesOf(source: DetectionSource, env: DetectionEnvironment): string[] {
  const present = (value: string | null | undefined): string[] => (value ? [value] : []);
  switch (source) {
    case 'querystring':
      return present(new URLSearchParams(env.query).get(DETECTION_KEYS.query));
    case 'cookie':
      return present(cookieValue(env.cookie, DETECTION_KEYS.cookie));
    case 'localStorage':
      return present(env.localStorage);
    case 'sessionStorage':
      return present(env.sessionStorage);
    case 'navigator':
      return env.navigatorLanguages.filter(Boolean);
    case 'htmlTag':
      return present(env.htmlLang);
  }
}

/** What every source offers, in detection order. */
export function readSources(env: DetectionEnvironment): SourceReading[] {
  return DETECTION_SOURCES.map((source) => {
    const values = valuesOf(source, env);
    const language = values.map(toLanguageCode).find((code) => code !== null) ?? null;
    return { source, values, language };
  });
}

/** The first supported language any source names, else English. */
export function detectLanguage(env: DetectionEnvironment): Detection {
  const readings = readSources(env);
  const hit = readings.find((reading) => reading.language !== null);
  return hit?.language
    ? { language: hit.language, source: hit.source, readings }
    : { language: DETECTION_FALLBACK_LANGUAGE, source: 'fallback', readings };
}
