/**
 * A room's people list as data: who is shown and in which order (you, then the groups in turn:
 * the people talking, then the audience), the search over display names, and, for a large room,
 * the rows of tiles that the list virtualizes (only the rows in view are in the page); and the
 * head count with its digits grouped as the language writes them.
 */
import type { Density } from './speakerOrder.ts';

/** Rooms of more than this many people (you included) get the search box. */
export const SEARCH_ABOVE = 12;

/** Rooms of more than this many people (you included) render only the rows in view. */
export const VIRTUALIZE_ABOVE = 60;

/** A tile's smallest width (rem), the gap between tiles (px) and the height of a row (px). */
export interface TileLayout {
  minWidthRem: number;
  gapPx: number;
  rowHeightPx: number;
}

/**
 * As Rooms.css lays out the tiles of each density. A row is as tall as its tallest tile can be:
 * in a dense room the slider and the buttons open over the tiles below, so the row stays put.
 */
export const TILE_LAYOUT: Record<Density, TileLayout> = {
  roomy: { minWidthRem: 9.5, gapPx: 12, rowHeightPx: 214 },
  compact: { minWidthRem: 7.5, gapPx: 8, rowHeightPx: 174 },
  dense: { minWidthRem: 5.25, gapPx: 6, rowHeightPx: 100 },
};

/** How a name is compared in the search: no case, no accents, compatibility forms folded, spaces single. */
export function normalizeName(name: string): string {
  return name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Whether a display name matches what was typed in the search box (anything, when nothing was). */
export function nameMatcher(query: string): (name: string) => boolean {
  const wanted = normalizeName(query);
  if (!wanted) return () => true;
  return (name) => normalizeName(name).includes(wanted);
}

/**
 * The ids to show, in order: `you` first, then each group in turn (someone in two groups shows in
 * the first), keeping only those `shown` accepts. The groups are the speakers and the audience
 * today; a stage's raised hands would be one more group between them.
 */
export function listPeople(
  you: string,
  groups: readonly (readonly string[])[],
  shown: (id: string) => boolean,
): string[] {
  const seen = new Set<string>();
  const list: string[] = [];
  for (const id of [you, ...groups.flat()]) {
    if (seen.has(id)) continue;
    seen.add(id);
    if (shown(id)) list.push(id);
  }
  return list;
}

/** Columns of tiles at least `minWidthPx` wide, `gapPx` apart, in `widthPx` (CSS grid's auto-fill); at least one. */
export function columnsFor(widthPx: number, minWidthPx: number, gapPx: number): number {
  return Math.max(1, Math.floor((widthPx + gapPx) / (minWidthPx + gapPx)));
}

/** Rows that `count` tiles take in `columns` columns. */
export function rowCount(count: number, columns: number): number {
  return Math.ceil(count / columns);
}

/** The indexes [start, end) of the tiles in row `row`. */
export function rowSpan(row: number, columns: number, count: number): { start: number; end: number } {
  const start = row * columns;
  return { start: Math.min(start, count), end: Math.min(start + columns, count) };
}

/**
 * The rows to render: those in view (`rows`, ascending) and the row holding the keyboard focus,
 * so that scrolling it out of view does not take the focus out of the page.
 */
export function withRow(rows: readonly number[], row: number | null, rowTotal: number): number[] {
  if (row === null || row >= rowTotal || rows.includes(row)) return [...rows];
  return [...rows, row].sort((a, b) => a - b);
}

/**
 * `text` with `count` in it written as `language` groups digits ("1,000 people in the room",
 * "1 000", "1.000"): i18next prints {{count}} as it is, and a placeholder with a format would no
 * longer be the {{count}} that every counted string shows.
 */
export function groupDigits(text: string, count: number, language: string): string {
  return text.replace(String(count), numberFormat(language).format(count));
}

/** One formatter per language: making one costs far more than formatting with it. */
const numberFormats = new Map<string, Intl.NumberFormat>();

function numberFormat(language: string): Intl.NumberFormat {
  let format = numberFormats.get(language);
  if (!format) {
    format = new Intl.NumberFormat(language);
    numberFormats.set(language, format);
  }
  return format;
}
