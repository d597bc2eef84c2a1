import { describe, expect, it } from 'vitest';
import { type DetectionEnvironment, detectLanguage, readSources, toLanguageCode } from './detectLanguage.ts';

const empty: DetectionEnvironment = {
  query: '',
  cookie: '',
  localStorage: null,
  sessionStorage: null,
  navigatorLanguages: [],
  htmlLang: null,
};

describe('detectLanguage', () => {
  it('takes the first supported browser language', () => {
    expect(detectLanguage({ ...empty, navigatorLanguages: ['zh-CN', 'pt-BR', 'en-US'] })).toMatchObject({
      language: 'pt',
      source: 'navigator',
    });
  });

  it('prefers the stored choice to the browser and the browser to the page', () => {
    const env = { ...empty, localStorage: 'de', navigatorLanguages: ['fr-FR'], htmlLang: 'ja' };
    expect(detectLanguage(env)).toMatchObject({ language: 'de', source: 'localStorage' });
    expect(detectLanguage({ ...env, localStorage: 'xx' })).toMatchObject({
      language: 'fr',
      source: 'navigator',
    });
    expect(detectLanguage({ ...env, localStorage: null, navigatorLanguages: ['ko'] })).toMatchObject({
      language: 'ja',
      source: 'htmlTag',
    });
  });

  it('reads the query string, the cookie and session storage in the detector order', () => {
    const env = {
      ...empty,
      query: '?tab=1&lng=it',
      cookie: 'theme=dark; i18next=es',
      localStorage: 'de',
      sessionStorage: 'fr',
      navigatorLanguages: ['en'],
      htmlLang: 'ru',
    };
    expect(detectLanguage(env).source).toBe('querystring');
    expect(detectLanguage({ ...env, query: '' })).toMatchObject({ language: 'es', source: 'cookie' });
    expect(detectLanguage({ ...env, query: '', cookie: '', localStorage: null })).toMatchObject({
      language: 'fr',
      source: 'sessionStorage',
    });
  });

  it('falls back to English when nothing is supported', () => {
    expect(detectLanguage({ ...empty, navigatorLanguages: ['zh-CN', 'ko'], htmlLang: 'nl' })).toMatchObject({
      language: 'en',
      source: 'fallback',
    });
    expect(detectLanguage(empty).language).toBe('en');
  });

  it('reports what every source offered', () => {
    const readings = readSources({
      ...empty,
      cookie: 'i18next=pt%2DBR',
      navigatorLanguages: ['nl-NL', 'de-AT'],
      htmlLang: 'ru',
    });
    expect(readings).toEqual([
      { source: 'querystring', values: [], language: null },
      { source: 'cookie', values: ['pt-BR'], language: 'pt' },
      { source: 'localStorage', values: [], language: null },
      { source: 'sessionStorage', values: [], language: null },
      { source: 'navigator', values: ['nl-NL', 'de-AT'], language: 'de' },
      { source: 'htmlTag', values: ['ru'], language: 'ru' },
    ]);
  });

  it('keeps a cookie value that is not valid percent-encoding as it is', () => {
    expect(readSources({ ...empty, cookie: 'i18next=%E0%A4' })[1]).toEqual({
      source: 'cookie',
      values: ['%E0%A4'],
      language: null,
    });
  });

  it('reduces regional tags to the base language', () => {
    expect(toLanguageCode('JA-jp')).toBe('ja');
    expect(toLanguageCode('es_419')).toBe('es');
    expect(toLanguageCode('nl')).toBeNull();
    expect(toLanguageCode('')).toBeNull();
  });
});
