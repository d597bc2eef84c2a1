/**
 * Start-up language choice (SPEC section 4): the stored choice, then the browser's
 * languages, else English. Loading the language from the profile comes later.
 */
import { DETECTION_FALLBACK_LANGUAGE, isLanguageCode, type LanguageCode } from '@voice/protocol';

/** The supported language for a BCP 47 tag such as `pt-BR`, or null. */
export function toLanguageCode(tag: string): LanguageCode | null {
  const base = tag.trim().toLowerCase().split(/[-_]/)[0];
  return isLanguageCode(base) ? base : null;
}

export function detectLanguage(stored: string | null, browserLanguages: readonly string[]): LanguageCode {
  if (isLanguageCode(stored)) return stored;
  for (const tag of browserLanguages) {
    const code = toLanguageCode(tag);
    if (code) return code;
  }
  return DETECTION_FALLBACK_LANGUAGE;
}
