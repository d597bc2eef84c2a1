/**
 * Counted strings through i18next itself, with the real translation files: the plural forms
 * locales/locales.test.ts requires are the ones i18next picks (ru one/few/many, ja other only).
 */
import { readFileSync } from 'node:fs';
import { LANGUAGE_CODES } from '@voice/protocol';
import i18next, { type Resource } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';

const resources: Resource = Object.fromEntries(
  LANGUAGE_CODES.map((code) => [
    code,
    {
      translation: JSON.parse(
        readFileSync(new URL(`../../../locales/${code}.json`, import.meta.url), 'utf8'),
      ),
    },
  ]),
);

const i18n = i18next.createInstance();
const pending = (language: string, count: number) =>
  i18n.getFixedT(language)('friends.requests.pending', { count });

describe('plural forms', () => {
  beforeAll(async () => {
    await i18n.init({
      resources,
      lng: 'ru',
      fallbackLng: 'ru',
      interpolation: { escapeValue: false },
      showSupportNotice: false,
    });
  });

  it('follow Russian one/few/many', () => {
    expect(pending('ru', 1)).toBe('1 заявка в друзья');
    expect(pending('ru', 3)).toBe('3 заявки в друзья');
    expect(pending('ru', 5)).toBe('5 заявок в друзья');
    expect(pending('ru', 11)).toBe('11 заявок в друзья');
    expect(pending('ru', 21)).toBe('21 заявка в друзья');
    expect(pending('ru', 24)).toBe('24 заявки в друзья');
  });

  it('follow one/other in English and German, other only in Japanese', () => {
    expect(pending('en', 1)).toBe('1 pending friend request');
    expect(pending('en', 2)).toBe('2 pending friend requests');
    expect(pending('de', 1)).toBe('1 offene Freundschaftsanfrage');
    expect(pending('de', 7)).toBe('7 offene Freundschaftsanfragen');
    expect(pending('ja', 1)).toBe('保留中の友だちリクエスト：1件');
    expect(pending('ja', 9)).toBe('保留中の友だちリクエスト：9件');
  });

  it('treat zero as French singular and as plural elsewhere', () => {
    expect(pending('fr', 0)).toBe("0 demande d'ami en attente");
    expect(pending('fr', 2)).toBe("2 demandes d'ami en attente");
    expect(pending('es', 0)).toBe('0 solicitudes de amistad pendientes');
    expect(pending('pt', 1)).toBe('1 pedido de amizade pendente');
    expect(pending('it', 4)).toBe('4 richieste di amicizia in sospeso');
  });

  it('never shows a raw key for any count in any language', () => {
    for (const code of LANGUAGE_CODES) {
      for (const count of [0, 1, 2, 3, 5, 11, 21, 101, 1_000_000]) {
        expect(pending(code, count), `${code} ${count}`).toMatch(new RegExp(`${count}`));
      }
    }
  });
});
