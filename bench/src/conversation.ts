/**
 * A scripted conversation among a room's talkers for bench:large-room: at any moment 2 to 6 of
 * them talk, some going on while others stop and new ones start (turns and talking over each
 * other), the set changing every 1 to 3 s. The script is seeded: the same seed gives the same
 * turns in the same order, whatever the machine.
 */
import type { PacedVoice } from './rtpLoad.ts';

const MIN_TALKING = 2;
const MAX_TALKING = 6;
const MIN_TURN_MS = 1000;
const MAX_TURN_MS = 3000;

/** A seeded pseudo-random generator (mulberry32) of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** `items` in an order drawn from `random` (Fisher–Yates). */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

export class Conversation {
  readonly #voices: readonly PacedVoice[];
  readonly #random: () => number;
  #timer: NodeJS.Timeout | null = null;
  /** When the number of voices talking changed, and to what: for the mean over a window. */
  readonly #log: Array<[at: number, talking: number]> = [[performance.now(), 0]];
  #turns = 0;

  constructor(voices: readonly PacedVoice[], seed: number) {
    this.#voices = voices;
    this.#random = seededRandom(seed);
  }

  /** The talkers (by index) talking now. */
  get talking(): number[] {
    return this.#voices.flatMap((voice, i) => (voice.talking ? [i] : []));
  }

  /** Turns taken so far. */
  get turns(): number {
    return this.#turns;
  }

  /** Follows the script from where it stopped. */
  play(): void {
    if (!this.#timer) this.#turn();
  }

  /** Stops following the script; the voices talking go on until set() says otherwise. */
  pause(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Exactly the talkers `talking` (indices) talk. */
  set(talking: Iterable<number>): void {
    const wanted = new Set(talking);
    this.#voices.forEach((voice, i) => {
      if (wanted.has(i)) voice.start();
      else voice.stop();
    });
    this.#log.push([performance.now(), wanted.size]);
  }

  /**
   * How many voices talked on average (time-weighted) between `from` and `to`
   * (performance.now()), counting at most `cap` at a time.
   */
  meanTalking(from: number, to: number, cap = Number.POSITIVE_INFINITY): number {
    let sum = 0;
    this.#log.forEach(([at, count], i) => {
      const end = this.#log[i + 1]?.[0] ?? to;
      const overlap = Math.min(end, to) - Math.max(at, from);
      if (overlap > 0) sum += overlap * Math.min(count, cap);
    });
    return sum / (to - from);
  }

  #turn(): void {
    const talking = shuffled(this.talking, this.#random);
    const silent = shuffled(
      this.#voices.flatMap((voice, i) => (voice.talking ? [] : [i])),
      this.#random,
    );
    const target = MIN_TALKING + Math.floor(this.#random() * (MAX_TALKING - MIN_TALKING + 1));
    // At least one stops and at least one starts; the rest talk on over the newcomers.
    const keep = talking.slice(0, Math.max(0, Math.min(talking.length - 1, target - 1)));
    this.set([...keep, ...silent.slice(0, target - keep.length)]);
    this.#turns += 1;
    const wait = MIN_TURN_MS + this.#random() * (MAX_TURN_MS - MIN_TURN_MS);
    this.#timer = setTimeout(() => this.#turn(), wait);
  }
}
