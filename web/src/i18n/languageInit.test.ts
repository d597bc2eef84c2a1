import type { LanguageCode } from '@voice/protocol';
import { describe, expect, it, vi } from 'vitest';
import {
  changeLanguageWith,
  initialiseLanguage,
  type LanguageChangeDeps,
  type LanguageInitDeps,
  type LanguageStorage,
} from './languageInit.ts';

function memoryStorage(
  initial: Record<string, string> = {},
): LanguageStorage & { items: Map<string, string> } {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
  };
}

const brokenStorage: LanguageStorage = {
  getItem: () => {
    throw new Error('SecurityError');
  },
  setItem: () => {
    throw new Error('QuotaExceededError');
  },
};

/** Dependencies of a visitor with an English browser and nothing stored; override per test. */
function deps(overrides: Partial<LanguageInitDeps> = {}) {
  const applied: LanguageCode[] = [];
  const storage = memoryStorage();
  const base = {
    hasToken: false,
    fetchProfile: vi.fn(async () => ({ language: 'de' as unknown })),
    storage,
    environment: {
      query: '',
      cookie: '',
      sessionStorage: null,
      navigatorLanguages: ['en-US'],
      htmlLang: 'ru',
    },
    apply: vi.fn(async (code: LanguageCode) => {
      applied.push(code);
    }),
    saveLanguage: vi.fn(async () => {}),
    log: vi.fn(),
    ...overrides,
  };
  return { ...base, applied };
}

describe('initialiseLanguage', () => {
  it('signed in: applies the profile language and copies it to local storage', async () => {
    const d = deps({ hasToken: true, storage: memoryStorage({ i18nextLng: 'fr' }) });
    const result = await initialiseLanguage(d);
    expect(result).toMatchObject({ language: 'de', source: 'profile', savedToProfile: false });
    expect(d.applied).toEqual(['de']);
    expect((d.storage as ReturnType<typeof memoryStorage>).items.get('i18nextLng')).toBe('de');
    expect(d.saveLanguage).not.toHaveBeenCalled();
  });

  it('signed in with an invalid profile language: uses the stored language', async () => {
    const storage = memoryStorage({ i18nextLng: 'it' });
    const d = deps({ hasToken: true, storage, fetchProfile: async () => ({ language: 'xx' }) });
    const result = await initialiseLanguage(d);
    expect(result).toMatchObject({ language: 'it', source: 'storage', profileFailed: false });
    expect(d.applied).toEqual(['it']);
    expect(d.saveLanguage).not.toHaveBeenCalled();
  });

  it('signed in, nothing valid stored: detects, stores and saves a language other than ru', async () => {
    const d = deps({
      hasToken: true,
      fetchProfile: async () => ({}),
      environment: {
        query: '',
        cookie: '',
        sessionStorage: null,
        navigatorLanguages: ['ja-JP', 'en'],
        htmlLang: 'ru',
      },
    });
    const result = await initialiseLanguage(d);
    expect(result).toMatchObject({ language: 'ja', source: 'detection', savedToProfile: true });
    expect(result.detection?.source).toBe('navigator');
    expect(d.applied).toEqual(['ja']);
    expect(d.storage.getItem('i18nextLng')).toBe('ja');
    expect(d.saveLanguage).toHaveBeenCalledWith('ja');
  });

  it('signed in: a detected ru is not saved to the profile', async () => {
    const d = deps({
      hasToken: true,
      fetchProfile: async () => ({ language: null }),
      environment: {
        query: '',
        cookie: '',
        sessionStorage: null,
        navigatorLanguages: ['ru-RU'],
        htmlLang: null,
      },
    });
    const result = await initialiseLanguage(d);
    expect(result).toMatchObject({ language: 'ru', source: 'detection', savedToProfile: false });
    expect(d.saveLanguage).not.toHaveBeenCalled();
  });

  it('signed in: a failed save of the detected language is silent', async () => {
    const d = deps({
      hasToken: true,
      fetchProfile: async () => ({ language: 'klingon' }),
      saveLanguage: vi.fn(async () => {
        throw new Error('503');
      }),
    });
    const result = await initialiseLanguage(d);
    expect(result).toMatchObject({ language: 'en', source: 'detection', savedToProfile: false });
    expect(d.applied).toEqual(['en']);
    expect(d.log).toHaveBeenCalledOnce();
  });

  it('profile load failure: falls back to the stored language', async () => {
    const d = deps({
      hasToken: true,
      storage: memoryStorage({ i18nextLng: 'pt' }),
      fetchProfile: async () => {
        throw new Error('offline');
      },
    });
    const result = await initialiseLanguage(d);
    expect(result).toMatchObject({ language: 'pt', source: 'storage', profileFailed: true });
    expect(d.applied).toEqual(['pt']);
  });

  it('profile load failure with nothing stored: falls back to ru without detecting or saving', async () => {
    const d = deps({
      hasToken: true,
      fetchProfile: async () => {
        throw new Error('offline');
      },
    });
    const result = await initialiseLanguage(d);
    expect(result).toMatchObject({ language: 'ru', source: 'default', profileFailed: true, detection: null });
    expect(d.applied).toEqual(['ru']);
    expect(d.saveLanguage).not.toHaveBeenCalled();
    expect(d.storage.getItem('i18nextLng')).toBeNull();
  });

  it('visitor: never asks for the profile and uses the stored language', async () => {
    const d = deps({ storage: memoryStorage({ i18nextLng: 'es' }) });
    const result = await initialiseLanguage(d);
    expect(result).toMatchObject({ language: 'es', source: 'storage' });
    expect(d.fetchProfile).not.toHaveBeenCalled();
  });

  it('visitor with an invalid stored language: detects and stores, but saves nothing', async () => {
    const storage = memoryStorage({ i18nextLng: 'xx' });
    const d = deps({ storage });
    const result = await initialiseLanguage(d);
    expect(result).toMatchObject({ language: 'en', source: 'detection', savedToProfile: false });
    expect(storage.items.get('i18nextLng')).toBe('en');
    expect(d.saveLanguage).not.toHaveBeenCalled();
  });

  it('detection reads the page language after the browser and falls back to en', async () => {
    const page = deps({
      environment: {
        query: '',
        cookie: '',
        sessionStorage: null,
        navigatorLanguages: ['ko'],
        htmlLang: 'fr',
      },
    });
    expect((await initialiseLanguage(page)).language).toBe('fr');
    const nothing = deps({
      environment: {
        query: '',
        cookie: '',
        sessionStorage: null,
        navigatorLanguages: ['ko'],
        htmlLang: null,
      },
    });
    expect(await initialiseLanguage(nothing)).toMatchObject({ language: 'en', source: 'detection' });
  });

  it('works when storage throws: nothing is read, nothing breaks', async () => {
    const d = deps({ storage: brokenStorage });
    expect(await initialiseLanguage(d)).toMatchObject({ language: 'en', source: 'detection' });
    const signedIn = deps({ storage: brokenStorage, hasToken: true });
    expect(await initialiseLanguage(signedIn)).toMatchObject({ language: 'de', source: 'profile' });
  });

  it('any other failure falls back to ru', async () => {
    const d = deps({
      hasToken: true,
      apply: vi.fn(async (code: LanguageCode) => {
        if (code !== 'ru') throw new Error('chunk load failed');
      }),
    });
    const result = await initialiseLanguage(d);
    expect(result).toMatchObject({ language: 'ru', source: 'default' });
    expect(d.apply).toHaveBeenLastCalledWith('ru');
    expect(d.log).toHaveBeenCalledOnce();
  });

  it('still resolves to ru when even ru cannot be applied', async () => {
    const d = deps({
      apply: vi.fn(async () => {
        throw new Error('offline');
      }),
    });
    await expect(initialiseLanguage(d)).resolves.toMatchObject({ language: 'ru', source: 'default' });
    expect(d.log).toHaveBeenCalledTimes(2);
  });

  it('works without a logger', async () => {
    const { log: _, ...rest } = deps({
      apply: async () => {
        throw new Error('offline');
      },
    });
    await expect(initialiseLanguage(rest)).resolves.toMatchObject({ language: 'ru' });
  });
});

describe('changeLanguageWith', () => {
  function changeDeps(overrides: Partial<LanguageChangeDeps> = {}) {
    return {
      hasToken: () => true,
      storage: memoryStorage({ i18nextLng: 'ru' }),
      apply: vi.fn(async () => {}),
      saveLanguage: vi.fn(async () => {}),
      ...overrides,
    };
  }

  it('applies, stores and saves a valid language when signed in', async () => {
    const d = changeDeps();
    await expect(changeLanguageWith('ja', d)).resolves.toBe(true);
    expect(d.apply).toHaveBeenCalledWith('ja');
    expect(d.storage.getItem('i18nextLng')).toBe('ja');
    expect(d.saveLanguage).toHaveBeenCalledWith('ja');
  });

  it('does not save for a visitor', async () => {
    const d = changeDeps({ hasToken: () => false });
    await changeLanguageWith('de', d);
    expect(d.storage.getItem('i18nextLng')).toBe('de');
    expect(d.saveLanguage).not.toHaveBeenCalled();
  });

  it('ignores a failed profile update', async () => {
    const log = vi.fn();
    const d = changeDeps({
      log,
      saveLanguage: vi.fn(async () => {
        throw new Error('500');
      }),
    });
    await expect(changeLanguageWith('fr', d)).resolves.toBe(true);
    expect(d.storage.getItem('i18nextLng')).toBe('fr');
    expect(log).toHaveBeenCalledOnce();
    const quiet = changeDeps({ saveLanguage: () => Promise.reject(new Error('500')) });
    await expect(changeLanguageWith('fr', quiet)).resolves.toBe(true);
  });

  it('lets a failed apply through, storing and saving nothing', async () => {
    const d = changeDeps({ apply: vi.fn(() => Promise.reject(new Error('chunk load failed'))) });
    await expect(changeLanguageWith('de', d)).rejects.toThrow('chunk load failed');
    expect(d.storage.getItem('i18nextLng')).toBe('ru');
    expect(d.saveLanguage).not.toHaveBeenCalled();
  });

  it('ignores invalid codes', async () => {
    const d = changeDeps();
    for (const code of ['xx', 'EN', '', null, 42]) {
      await expect(changeLanguageWith(code, d)).resolves.toBe(false);
    }
    expect(d.apply).not.toHaveBeenCalled();
    expect(d.storage.getItem('i18nextLng')).toBe('ru');
  });
});
