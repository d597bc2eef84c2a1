/** Dates and times in the interface language, through Intl (no translation keys needed). */

type DateInput = Date | string | number;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const MONTH = 30 * DAY;
const YEAR = 365 * DAY;

/** Largest unit first; a distance is told in the first unit it reaches. */
const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', YEAR],
  ['month', MONTH],
  ['week', WEEK],
  ['day', DAY],
  ['hour', HOUR],
  ['minute', MINUTE],
];

/** Closer than this counts as "now". */
const NOW_WINDOW_MS = 45 * SECOND;

function toDate(value: DateInput): Date | null {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * How long ago `date` was, e.g. "5 minutes ago", "yesterday", "vor 3 Stunden", "now";
 * empty for an invalid date. Meant for `last_seen`.
 */
export function formatLastSeen(date: DateInput, language: string, now: DateInput = Date.now()): string {
  const then = toDate(date);
  const reference = toDate(now);
  if (!then || !reference) return '';
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  const diff = then.getTime() - reference.getTime();
  if (Math.abs(diff) < NOW_WINDOW_MS) return format.format(0, 'second');
  for (const [unit, size] of UNITS) {
    if (Math.abs(diff) >= size || unit === 'minute') {
      // Truncate towards zero so "59 minutes" never shows as "1 hour" too early.
      const amount = Math.trunc(diff / size) || Math.sign(diff);
      return format.format(amount, unit);
    }
  }
  return format.format(0, 'second');
}

/** A calendar date, e.g. "12 Mar 2026" / "2026年3月12日"; empty for an invalid date. */
export function formatDate(
  date: DateInput,
  language: string,
  options: Intl.DateTimeFormatOptions = { dateStyle: 'medium' },
): string {
  const value = toDate(date);
  return value ? new Intl.DateTimeFormat(language, options).format(value) : '';
}

/** A date with its time of day, e.g. "12 Mar 2026, 14:05"; empty for an invalid date. */
export function formatDateTime(date: DateInput, language: string): string {
  return formatDate(date, language, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The name of language `code` written in `language`, e.g. ("ja", "de") → "Japanisch"; null if unknown. */
export function languageNameIn(code: string, language: string): string | null {
  try {
    const name = new Intl.DisplayNames([language], { type: 'language' }).of(code);
    return name && name !== code ? name : null;
  } catch {
    return null;
  }
}
