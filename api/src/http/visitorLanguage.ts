/**
 * The language a visitor's first page is served in, chosen as the web app's detection would
 * choose it from what a request carries (web/src/i18n/detectLanguage.ts): the `lng` query
 * parameter, the `i18next` cookie, then Accept-Language; English when none names a supported
 * language. The app's stored choice lives in local storage, which a server cannot see: the
 * page drops prerendered markup of another language (web/src/session/prerendered.ts).
 */
import { DETECTION_FALLBACK_LANGUAGE, LANGUAGE_CODES, type LanguageCode } from '@voice/protocol';
import type { Context } from 'koa';

function supported(tag: string | undefined | null): LanguageCode | null {
  const base = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return LANGUAGE_CODES.find((code) => code === base) ?? null;
}

export function visitorLanguage(
  ctx: Pick<Context, 'query' | 'cookies' | 'get' | 'acceptsLanguages'>,
): LanguageCode {
  const query = ctx.query.lng;
  const fromQuery = supported(Array.isArray(query) ? query[0] : query);
  if (fromQuery) return fromQuery;
  const fromCookie = supported(ctx.cookies.get('i18next'));
  if (fromCookie) return fromCookie;
  // Only a language the header names: without one (no header, or `*`), negotiation would
  // pick the first language offered, where the browser's own detection finds none.
  const header = ctx.get('Accept-Language');
  const named = new Set(header.split(',').map((entry) => supported(entry.split(';')[0])));
  const accepted = ctx.acceptsLanguages([...LANGUAGE_CODES]);
  const chosen = typeof accepted === 'string' ? supported(accepted) : null;
  return chosen && named.has(chosen) ? chosen : DETECTION_FALLBACK_LANGUAGE;
}
