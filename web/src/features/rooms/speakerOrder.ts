/**
 * The order of a room's tiles: the people talking first, then everyone else in the order they
 * came in. Someone who speaks joins the front and keeps their place there until they have
 * been quiet for a while, so that tiles do not jump at every breath, and the front keeps the
 * order in which people started talking (a new voice goes after those already there).
 */
import { useRef } from 'react';

/** Quiet for this long, a speaker goes back among everyone else. */
export const SPEAKER_HOLD_MS = 10_000;

/** Tile sizes by how many people a room holds (you included). */
export type Density = 'roomy' | 'compact' | 'dense';

export function densityFor(people: number): Density {
  if (people <= 12) return 'roomy';
  if (people <= 40) return 'compact';
  return 'dense';
}

/** Who is at the front: id → when they came to the front and when they last spoke. */
export type Front = ReadonlyMap<string, { since: number; lastSpoke: number }>;

/**
 * The front after a moment in which `speaking` were talking, at `now`; the people at the front
 * (`speakers`); and the order of `members` (in the order they came in) with the front first.
 */
export function orderSpeakers(
  members: readonly string[],
  speaking: readonly string[],
  front: Front,
  now: number,
): { front: Front; speakers: string[]; order: string[] } {
  const present = new Set(members);
  const next = new Map<string, { since: number; lastSpoke: number }>();
  for (const [id, place] of front) {
    if (present.has(id) && now - place.lastSpoke < SPEAKER_HOLD_MS) next.set(id, place);
  }
  for (const id of speaking) {
    if (!present.has(id)) continue;
    const place = next.get(id);
    next.set(id, { since: place?.since ?? now, lastSpoke: now });
  }
  const talking = [...next.entries()].sort((a, b) => a[1].since - b[1].since).map(([id]) => id);
  return { front: next, speakers: talking, order: [...talking, ...members.filter((id) => !next.has(id))] };
}

/** orderSpeakers over renders: the people at the front, and everyone else, each in the order to show them. */
export function useSpeakerOrder(
  members: readonly string[],
  speaking: readonly string[],
): { speakers: string[]; others: string[] } {
  const front = useRef<Front>(new Map());
  const { front: next, speakers, order } = orderSpeakers(members, speaking, front.current, Date.now());
  front.current = next;
  return { speakers, others: order.slice(speakers.length) };
}
