import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatLastSeen, languageNameIn } from './format.ts';

const now = new Date('2026-03-12T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('formatLastSeen', () => {
  it('says "now" for the last few seconds', () => {
    expect(formatLastSeen(ago(10_000), 'en', now)).toBe('now');
    expect(formatLastSeen(ago(10_000), 'ru', now)).toBe('сейчас');
  });

  it('uses the largest whole unit', () => {
    expect(formatLastSeen(ago(50_000), 'en', now)).toBe('1 minute ago');
    expect(formatLastSeen(ago(5 * MINUTE), 'en', now)).toBe('5 minutes ago');
    expect(formatLastSeen(ago(59 * MINUTE), 'en', now)).toBe('59 minutes ago');
    expect(formatLastSeen(ago(3 * HOUR), 'de', now)).toBe('vor 3 Stunden');
    expect(formatLastSeen(ago(DAY), 'en', now)).toBe('yesterday');
    expect(formatLastSeen(ago(2 * DAY), 'fr', now)).toBe('avant-hier');
    expect(formatLastSeen(ago(8 * DAY), 'en', now)).toBe('last week');
    expect(formatLastSeen(ago(40 * DAY), 'es', now)).toBe('el mes pasado');
    expect(formatLastSeen(ago(800 * DAY), 'en', now)).toBe('2 years ago');
    expect(formatLastSeen(ago(3 * HOUR), 'ja', now)).toBe('3 時間前');
  });

  it('accepts ISO strings and timestamps, and gives nothing for invalid dates', () => {
    expect(formatLastSeen('2026-03-12T11:30:00Z', 'en', now)).toBe('30 minutes ago');
    expect(formatLastSeen(now.getTime() - 2 * HOUR, 'it', now.getTime())).toBe('2 ore fa');
    expect(formatLastSeen('not a date', 'en', now)).toBe('');
    expect(formatLastSeen(now, 'en', 'not a date')).toBe('');
  });

  it('handles a time slightly in the future (clock skew)', () => {
    expect(formatLastSeen(new Date(now.getTime() + 2 * MINUTE), 'en', now)).toBe('in 2 minutes');
  });
});

describe('formatDate', () => {
  it('formats for the language', () => {
    expect(formatDate(now, 'en')).toBe('Mar 12, 2026');
    expect(formatDate(now, 'de')).toBe('12.03.2026');
    expect(formatDate(now, 'ja')).toBe('2026/03/12');
    expect(formatDate('garbage', 'en')).toBe('');
    expect(formatDateTime(now, 'en')).toMatch(/^Mar 12, 2026, \d{1,2}:00/);
  });
});

describe('languageNameIn', () => {
  it('names a language in another one', () => {
    expect(languageNameIn('ja', 'de')).toBe('Japanisch');
    expect(languageNameIn('fr', 'ru')).toBe('французский');
    expect(languageNameIn('xx', 'en')).toBeNull();
    expect(languageNameIn('en', 'not a tag!')).toBeNull();
  });
});
