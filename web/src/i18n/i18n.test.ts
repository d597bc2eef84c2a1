/**
 * i18n.ts in Node, with the few browser globals it reads stubbed: the start-up language's
 * translations are read alone, ru (the fallback) only when asked for.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

beforeAll(() => {
  const storage = { getItem: (key: string) => (key === 'i18nextLng' ? 'de' : null), setItem: () => {} };
  vi.stubGlobal('document', {
    documentElement: { lang: '', getAttribute: () => null },
    cookie: '',
  });
  vi.stubGlobal('window', { localStorage: storage, sessionStorage: storage, location: { search: '' } });
  vi.stubGlobal('navigator', { languages: ['de-DE'], language: 'de-DE' });
});
afterAll(() => vi.unstubAllGlobals());

describe('initI18n() and addFallbackLanguage()', () => {
  it('reads the start-up language only, then makes ru the fallback for a missing key', async () => {
    const { default: i18next } = await import('i18next');
    const { addFallbackLanguage, currentLanguage, initI18n } = await import('./i18n.ts');
    await initI18n();
    expect(currentLanguage()).toBe('de');
    expect(document.documentElement.lang).toBe('de');
    expect(i18next.hasResourceBundle('de', 'translation')).toBe(true);
    expect(i18next.hasResourceBundle('ru', 'translation')).toBe(false);
    expect(i18next.t('login.title')).toBe('Willkommen zurück');
    // A key the language shown lacks: the key itself, while there is no fallback.
    expect(i18next.t('test.onlyInRussian')).toBe('test.onlyInRussian');

    await addFallbackLanguage();
    expect(i18next.hasResourceBundle('ru', 'translation')).toBe(true);
    i18next.addResource('ru', 'translation', 'test.onlyInRussian', 'Только по-русски');
    expect(i18next.t('test.onlyInRussian')).toBe('Только по-русски');
    expect(i18next.t('login.title')).toBe('Willkommen zurück');
    expect(currentLanguage()).toBe('de');
  });
});
