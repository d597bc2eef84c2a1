/**
 * The people of a room as a list of tiles: you first, then the groups in turn (the people
 * talking, then the audience), with a search box over the display names once the room holds more
 * than SEARCH_ABOVE people. A room of more than VIRTUALIZE_ABOVE people renders only the rows of
 * tiles in view (and a few around them): the page scrolls as before, the grid's columns follow
 * its width, and every row is one density's height, so that a thousand people stay responsive.
 */
import { defaultRangeExtractor, useWindowVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, type RefObject, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchIcon } from '../../../ui/icons.tsx';
import {
  columnsFor,
  listPeople,
  nameMatcher,
  rowCount,
  rowSpan,
  SEARCH_ABOVE,
  TILE_LAYOUT,
  VIRTUALIZE_ABOVE,
  withRow,
} from '../peopleList.ts';
import type { Density } from '../speakerOrder.ts';
import type { TileItemProps } from './Participant.tsx';

/** Rows rendered beyond those in view, above and below. */
const OVERSCAN_ROWS = 2;

/** Draws the tile of one person (`item`: its place in a virtualized list). */
export type RenderTile = (id: string, item?: TileItemProps) => ReactNode;

export function RoomPeople({
  you,
  groups,
  nameOf,
  density,
  renderTile,
}: {
  /** Your id: your tile comes first. */
  you: string;
  /** The others, group after group in the order shown. */
  groups: readonly (readonly string[])[];
  /** A person's display name, as the search reads it. */
  nameOf: (id: string) => string;
  density: Density;
  renderTile: RenderTile;
}) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const everyone = 1 + groups.reduce((sum, group) => sum + group.length, 0);
  const searchable = everyone > SEARCH_ABOVE;
  const matches = nameMatcher(searchable ? query : '');
  const people = listPeople(you, groups, (id) => matches(nameOf(id)));
  const label = t('rooms.view.people');

  return (
    <>
      {searchable && (
        <label className="room-view__search">
          <SearchIcon />
          <span className="visually-hidden">{t('rooms.view.search')}</span>
          <input
            type="search"
            value={query}
            placeholder={t('rooms.view.search')}
            maxLength={100}
            onChange={(event) => setQuery(event.target.value)}
          />
        </label>
      )}
      {people.length === 0 ? (
        <p className="room-view__no-match" role="status">
          {t('rooms.view.noMatch')}
        </p>
      ) : everyone > VIRTUALIZE_ABOVE ? (
        <VirtualPeople people={people} density={density} label={label} renderTile={renderTile} />
      ) : (
        <ul className="room-view__people" aria-label={label} data-density={density}>
          {people.map((id) => renderTile(id))}
        </ul>
      )}
    </>
  );
}

/** The tiles in rows, only the rows in view (plus OVERSCAN_ROWS, plus the one holding the focus) rendered. */
function VirtualPeople({
  people,
  density,
  label,
  renderTile,
}: {
  people: readonly string[];
  density: Density;
  label: string;
  renderTile: RenderTile;
}) {
  const list = useRef<HTMLUListElement>(null);
  const layout = TILE_LAYOUT[density];
  const box = useListBox(list);
  // Whose tile holds the keyboard focus: its row stays rendered while scrolled away.
  const [focused, setFocused] = useState<string | null>(null);

  const columns = columnsFor(box.width, layout.minWidthRem * box.remPx, layout.gapPx);
  const rows = rowCount(people.length, columns);
  const focusedIndex = focused === null ? -1 : people.indexOf(focused);
  const focusedRow = focusedIndex < 0 ? null : Math.floor(focusedIndex / columns);
  const virtualizer = useWindowVirtualizer({
    count: rows,
    estimateSize: () => layout.rowHeightPx,
    gap: layout.gapPx,
    overscan: OVERSCAN_ROWS,
    scrollMargin: box.top,
    rangeExtractor: (range) => withRow(defaultRangeExtractor(range), focusedRow, rows),
  });

  return (
    <ul
      ref={list}
      className="room-view__people"
      aria-label={label}
      data-density={density}
      data-virtual="true"
      style={{
        gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
        gridTemplateRows: `repeat(${rows}, ${layout.rowHeightPx}px)`,
      }}
      onFocus={(event) => {
        const tile = (event.target as Element).closest<HTMLElement>('[data-person]');
        setFocused(tile?.dataset.person ?? null);
      }}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setFocused(null);
      }}
    >
      {virtualizer.getVirtualItems().flatMap((row) => {
        const { start, end } = rowSpan(row.index, columns, people.length);
        return people.slice(start, end).map((id, column) =>
          renderTile(id, {
            style: { gridRow: row.index + 1, gridColumn: column + 1 },
            'aria-setsize': people.length,
            'aria-posinset': start + column + 1,
            'data-person': id,
          }),
        );
      })}
    </ul>
  );
}

/** Where a list is: its width and the root font size (for the columns) and its top in the page (for the rows). */
interface ListBox {
  width: number;
  remPx: number;
  top: number;
}

/**
 * The list's box, measured before paint: when it is resized, and after every render, since what
 * stands above it in the page (an alert, a description) may have grown.
 */
function useListBox(list: RefObject<HTMLElement | null>): ListBox {
  const [box, setBox] = useState<ListBox>({ width: 0, remPx: 16, top: 0 });
  const measure = useRef(() => {
    const element = list.current;
    if (!element) return;
    const next = {
      width: element.clientWidth,
      remPx: Number.parseFloat(getComputedStyle(document.documentElement).fontSize) || 16,
      top: element.getBoundingClientRect().top + window.scrollY,
    };
    setBox((last) =>
      last.width === next.width && last.remPx === next.remPx && last.top === next.top ? last : next,
    );
  }).current;
  useLayoutEffect(() => {
    const element = list.current;
    if (!element) return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [list, measure]);
  useLayoutEffect(measure);
  return box;
}
