import { describe, expect, it } from 'vitest';
import {
  columnsFor,
  groupDigits,
  listPeople,
  nameMatcher,
  normalizeName,
  rowCount,
  rowSpan,
  SEARCH_ABOVE,
  TILE_LAYOUT,
  VIRTUALIZE_ABOVE,
  withRow,
} from './peopleList.ts';
import { densityFor } from './speakerOrder.ts';

describe('normalizeName', () => {
  it('drops case and accents, folds compatibility forms and squeezes spaces', () => {
    expect(normalizeName('  Élodie   MÜLLER ')).toBe('elodie muller');
    expect(normalizeName('Ｊｏｓé')).toBe('jose');
    expect(normalizeName('Łukasz')).toBe('łukasz');
    expect(normalizeName('Дарья Ёлкина')).toBe('дарья елкина');
  });
});

describe('nameMatcher', () => {
  it('finds a part of a name whatever its case and accents', () => {
    const matches = nameMatcher('zoe ');
    expect(matches('Zoé Martin')).toBe(true);
    expect(matches('ZOË')).toBe(true);
    expect(matches('Chloé')).toBe(false);
    expect(nameMatcher('ÉLO')('Mélodie')).toBe(true);
  });

  it('matches everyone when nothing (or only spaces) was typed', () => {
    expect(nameMatcher('')('Anyone')).toBe(true);
    expect(nameMatcher('   ')('Anyone')).toBe(true);
  });
});

describe('listPeople', () => {
  const everyone = () => true;

  it('puts you first, then the speakers, then the audience', () => {
    expect(
      listPeople(
        'me',
        [
          ['dan', 'bob'],
          ['ann', 'cat'],
        ],
        everyone,
      ),
    ).toEqual(['me', 'dan', 'bob', 'ann', 'cat']);
  });

  it('shows someone in two groups once, in the first (room for raised hands between the two)', () => {
    const speakers = ['dan'];
    const raisedHands = ['eve', 'dan'];
    const audience = ['ann', 'eve'];
    expect(listPeople('me', [speakers, raisedHands, audience], everyone)).toEqual([
      'me',
      'dan',
      'eve',
      'ann',
    ]);
  });

  it('keeps only those the search finds, you included only when you match', () => {
    const names: Record<string, string> = { me: 'Zoé', a: 'Ann', b: 'Zoe B', c: 'Bob' };
    const matches = nameMatcher('zoe');
    const shown = (id: string) => matches(names[id] ?? '');
    expect(listPeople('me', [['c'], ['a', 'b']], shown)).toEqual(['me', 'b']);
    expect(listPeople('me', [['c'], ['a', 'b']], (id) => nameMatcher('b')(names[id] ?? ''))).toEqual([
      'c',
      'b',
    ]);
  });
});

describe('rows of tiles', () => {
  it('fits as many columns as CSS grid auto-fill does, and at least one', () => {
    // 84 px tiles 6 px apart: 9 fit in 858 px (9·84 + 8·6 = 804), 10 need 894.
    expect(columnsFor(858, 84, 6)).toBe(9);
    expect(columnsFor(894, 84, 6)).toBe(10);
    expect(columnsFor(893, 84, 6)).toBe(9);
    expect(columnsFor(0, 84, 6)).toBe(1);
    expect(columnsFor(50, 84, 6)).toBe(1);
  });

  it('chunks the tiles into rows, the last one short', () => {
    expect(rowCount(1000, 9)).toBe(112);
    expect(rowCount(9, 9)).toBe(1);
    expect(rowCount(0, 9)).toBe(0);
    expect(rowSpan(0, 9, 20)).toEqual({ start: 0, end: 9 });
    expect(rowSpan(2, 9, 20)).toEqual({ start: 18, end: 20 });
    expect(rowSpan(3, 9, 20)).toEqual({ start: 20, end: 20 });
  });

  it('keeps the row holding the focus among the rows rendered, in order', () => {
    expect(withRow([10, 11, 12], 2, 50)).toEqual([2, 10, 11, 12]);
    expect(withRow([10, 11, 12], 11, 50)).toEqual([10, 11, 12]);
    expect(withRow([10, 11, 12], null, 50)).toEqual([10, 11, 12]);
    // A row gone (people left, or the search hides them) is not asked for.
    expect(withRow([0, 1], 7, 2)).toEqual([0, 1]);
  });

  it('virtualizes only dense rooms, which have the search box', () => {
    expect(densityFor(VIRTUALIZE_ABOVE + 1)).toBe('dense');
    expect(SEARCH_ABOVE).toBeLessThan(VIRTUALIZE_ABOVE);
    expect(TILE_LAYOUT.dense.rowHeightPx).toBeGreaterThan(0);
  });
});

describe('groupDigits', () => {
  it('writes the count as the language does', () => {
    expect(groupDigits('1000 people in the room', 1000, 'en')).toBe('1,000 people in the room');
    expect(groupDigits('1000 Personen im Raum', 1000, 'de')).toBe('1.000 Personen im Raum');
    expect(groupDigits('1000 personnes dans le salon', 1000, 'fr')).toBe(
      '1\u202f000 personnes dans le salon',
    );
    expect(groupDigits('ルームに1000人', 1000, 'ja')).toBe('ルームに1,000人');
    expect(groupDigits('151 people in the room', 151, 'en')).toBe('151 people in the room');
  });
});
