/**
 * Loudest-K forwarding: each listener receives at most K voices at once, the loudest, as
 * jitsi-videobridge's last-N with `route-loudest-only` does; the rest of the room is not sent
 * (ARCHITECTURE.md, "Forwarding is a policy").
 *
 * The room picks its voices once, for everyone: a ranked list of K+1 places. A listener receives
 * the first K of the list other than themselves, so a speaker among the loudest hears the K
 * others, and a room of at most K+1 voices hears everyone (nobody is ever left out there).
 *
 * Choosing with hysteresis, so that voices of similar loudness do not flap and a cough does not
 * push out the one talking: a voice takes a free place at once, and the place of a voice that
 * fell silent at once (the least recently loud of them); the place of a voice still talking only
 * once it has been louder for `switchAfterMs`. A place taken because it was free is provisional
 * for `switchAfterMs`: a louder voice takes it at once, so that when the loudest stops and a new
 * one starts, the new one is heard rather than whoever was next in line. Places are filled with
 * silent voices while there are some, so small rooms and pauses keep what they hear.
 *
 * A listener holds consumers of at most `heldPerForwarded` × K recent voices: the ones not
 * forwarded are paused (resumed without renegotiation when their voice comes back), and past
 * that bound the least recently forwarded is closed. A voice not held is consumed on demand.
 *
 * Levels are every voice's above the threshold now, as the room keeps them from one
 * AudioLevelObserver per voice (Room.#observeLevel: a shared one of mediasoup 3.8 drops one of
 * two voices at the same level); a voice left out is silent.
 */
import { FORWARDING } from '@voice/protocol';
import type { ForwardingChange, ForwardingPolicy, ForwardingState, SpeakerLevel } from './Forwarding.ts';

/** Options of LoudestK. */
export interface LoudestKOptions {
  /** Voices each listener receives at once. */
  k: number;
  /** Now, in ms (tests drive their own clock). */
  now?: () => number;
  switchAfterMs?: number;
  heldPerForwarded?: number;
}

interface Voice {
  /** Its level in the last report (dBov, louder is higher), or null while silent. */
  level: number | null;
  /** When it was last reported above the threshold (-1: never). */
  loudAt: number;
}

interface Listener {
  /** Voices forwarded to it now. */
  forwarded: Set<string>;
  /** Voices it holds a consumer of (forwarded or paused), with when each was last forwarded. */
  holds: Map<string, number>;
}

/**
 * Places of the ranked list that a voice keeps until it falls silent or a louder one has been
 * louder long enough, with when each candidate began being louder than the quietest place.
 */
class Places {
  readonly voices: string[] = [];
  size: number;
  readonly #louderSince = new Map<string, number>();
  /**
   * Voices that took a free place or a silent one's, and when: for `switchAfterMs` a louder voice
   * takes such a place at once (the loudest, not the first to ask, gets a freed place).
   */
  readonly #provisional = new Map<string, number>();

  constructor(size: number) {
    this.size = size;
  }

  remove(peerId: string): void {
    const at = this.voices.indexOf(peerId);
    if (at >= 0) this.voices.splice(at, 1);
    this.#louderSince.delete(peerId);
    this.#provisional.delete(peerId);
  }

  /**
   * Lets `candidates` (talking voices not here, loudest first) in by the rules; returns the voices
   * that lost their place.
   */
  contest(
    candidates: readonly string[],
    voices: ReadonlyMap<string, Voice>,
    now: number,
    switchAfterMs: number,
  ): string[] {
    const lost: string[] = [];
    for (const peerId of this.#louderSince.keys()) {
      if (!candidates.includes(peerId)) this.#louderSince.delete(peerId);
    }
    for (const [peerId, since] of this.#provisional) {
      if (now - since >= switchAfterMs) this.#provisional.delete(peerId);
    }
    const level = (peerId: string) => voices.get(peerId)?.level ?? null;
    for (const candidate of candidates) {
      if (this.voices.length < this.size) {
        this.voices.push(candidate);
        this.#louderSince.delete(candidate);
        this.#provisional.set(candidate, now);
        continue;
      }
      const silent = this.voices
        .filter((peerId) => level(peerId) === null)
        .sort((a, b) => (voices.get(a)?.loudAt ?? 0) - (voices.get(b)?.loudAt ?? 0));
      const quietest = silent[0] ?? this.#quietest(level);
      if (quietest === undefined) break;
      const candidateLevel = level(candidate) as number;
      const quietestLevel = level(quietest);
      let takes = quietestLevel === null;
      if (!takes && candidateLevel > (quietestLevel as number)) {
        const since = this.#louderSince.get(candidate) ?? now;
        this.#louderSince.set(candidate, since);
        takes = now - since >= switchAfterMs || this.#provisional.has(quietest);
      } else if (!takes) {
        this.#louderSince.delete(candidate);
      }
      if (!takes) continue;
      this.voices[this.voices.indexOf(quietest)] = candidate;
      this.#louderSince.delete(candidate);
      // A silent voice's place is taken provisionally; one won by being louder is kept.
      if (quietestLevel === null) this.#provisional.set(candidate, now);
      this.#provisional.delete(quietest);
      lost.push(quietest);
    }
    return lost;
  }

  /** Fills free places with `others` in their order, provisionally. */
  fill(others: readonly string[], now: number): void {
    for (const peerId of others) {
      if (this.voices.length >= this.size) return;
      if (this.voices.includes(peerId)) continue;
      this.voices.push(peerId);
      this.#provisional.set(peerId, now);
    }
  }

  #quietest(level: (peerId: string) => number | null): string | undefined {
    let quietest: string | undefined;
    for (const peerId of this.voices) {
      if (quietest === undefined || (level(peerId) as number) < (level(quietest) as number))
        quietest = peerId;
    }
    return quietest;
  }
}

export class LoudestK implements ForwardingPolicy {
  #k: number;
  readonly #now: () => number;
  readonly #switchAfterMs: number;
  readonly #heldPerForwarded: number;
  readonly #listeners = new Map<string, Listener>();
  readonly #voices = new Map<string, Voice>();
  /** The first K places: what a listener outside them receives. */
  readonly #head: Places;
  /** The K+1-th place: what a listener in the head receives instead of their own voice. */
  readonly #spare = new Places(1);
  /** The places as the room's leading part chose them (a room across media servers), or null. */
  #followed: readonly string[] | null = null;

  constructor({
    k,
    now = () => performance.now(),
    switchAfterMs = FORWARDING.switchAfterMs,
    heldPerForwarded = FORWARDING.heldPerForwarded,
  }: LoudestKOptions) {
    this.#k = k;
    this.#now = now;
    this.#switchAfterMs = switchAfterMs;
    this.#heldPerForwarded = heldPerForwarded;
    this.#head = new Places(k);
  }

  get k(): number {
    return this.#k;
  }

  /** The voices in the K+1 places, the first K first. */
  get selected(): string[] {
    return [...this.#head.voices, ...this.#spare.voices];
  }

  get selection(): readonly string[] {
    return this.selected;
  }

  follow(selection: readonly string[] | null): ForwardingChange[] {
    this.#followed = selection;
    return this.#reselect();
  }

  peerJoined(peerId: string): ForwardingChange[] {
    this.#listeners.set(peerId, { forwarded: new Set(), holds: new Map() });
    return this.#sync([peerId]);
  }

  peerCanReceive(peerId: string): ForwardingChange[] {
    // What it was due before could not be made without a receiving transport: ask again.
    if (!this.#listeners.has(peerId)) return [];
    return this.peerJoined(peerId);
  }

  peerLeft(peerId: string): ForwardingChange[] {
    this.#listeners.delete(peerId);
    return this.producerRemoved(peerId);
  }

  producerAdded(peerId: string): ForwardingChange[] {
    this.#voices.set(peerId, { level: null, loudAt: -1 });
    return this.#reselect();
  }

  producerRemoved(peerId: string): ForwardingChange[] {
    if (!this.#voices.delete(peerId)) return [];
    this.#head.remove(peerId);
    this.#spare.remove(peerId);
    // The worker closed every consumer of the voice with it.
    for (const listener of this.#listeners.values()) {
      listener.forwarded.delete(peerId);
      listener.holds.delete(peerId);
    }
    return this.#reselect();
  }

  audioLevels(levels: readonly SpeakerLevel[]): ForwardingChange[] {
    const now = this.#now();
    const reported = new Map(levels.map(({ peerId, volume }) => [peerId, volume]));
    for (const [peerId, voice] of this.#voices) {
      voice.level = reported.get(peerId) ?? null;
      if (voice.level !== null) voice.loudAt = now;
    }
    return this.#reselect();
  }

  consumerLost(listenerId: string, speakerId: string): ForwardingChange[] {
    const listener = this.#listeners.get(listenerId);
    if (!listener) return [];
    listener.holds.delete(speakerId);
    if (!listener.forwarded.delete(speakerId)) return [];
    // Still due: consumed again (held again as it is).
    listener.forwarded.add(speakerId);
    listener.holds.set(speakerId, this.#now());
    return [{ action: 'consume', listener: listenerId, speaker: speakerId }];
  }

  stateOf(listenerId: string, speakerId: string): ForwardingState {
    const listener = this.#listeners.get(listenerId);
    if (listener?.forwarded.has(speakerId)) return 'forwarded';
    return listener?.holds.has(speakerId) ? 'held' : 'none';
  }

  forwardedVoices(): ReadonlySet<string> {
    return new Set(this.selected);
  }

  setLoudest(k: number): ForwardingChange[] {
    if (k === this.#k) return [];
    this.#k = k;
    this.#head.size = k;
    // Fewer places: the quietest go back among the others, to be placed again.
    const dropped = this.#head.voices.splice(k);
    this.#spare.voices.unshift(...dropped);
    this.#spare.voices.splice(1);
    // Every listener's due changed with K, whether or not the places did.
    return [...this.#reselect(), ...this.#sync([...this.#listeners.keys()])];
  }

  /** Chooses the places again and tells every listener what changed for them. */
  #reselect(): ForwardingChange[] {
    const before = this.selected.join();
    if (this.#followed) {
      this.#takeFollowed(this.#followed);
      return this.selected.join() === before ? [] : this.#sync([...this.#listeners.keys()]);
    }
    const now = this.#now();
    const talking = [...this.#voices]
      .filter(([, voice]) => voice.level !== null)
      .sort(([, a], [, b]) => (b.level as number) - (a.level as number))
      .map(([peerId]) => peerId);
    const lost = this.#head.contest(
      talking.filter((peerId) => !this.#head.voices.includes(peerId)),
      this.#voices,
      now,
      this.#switchAfterMs,
    );
    // A voice that takes a head place leaves the spare one.
    for (const peerId of this.#head.voices) this.#spare.remove(peerId);
    const outside = (peerId: string) =>
      !this.#head.voices.includes(peerId) && !this.#spare.voices.includes(peerId);
    this.#spare.contest(talking.filter(outside), this.#voices, now, this.#switchAfterMs);
    // Free places go to the voices left out, the talking and then the most recently loud first.
    const others = [...talking, ...lost, ...this.#byRecency()].filter(outside);
    this.#head.fill(others, now);
    this.#spare.fill(others.filter(outside), now);
    if (this.selected.join() === before) return [];
    return this.#sync([...this.#listeners.keys()]);
  }

  /**
   * The places as another part chose them, less the voices not here (yet: a voice piped from
   * there arrives a moment after it is chosen, and is placed then).
   */
  #takeFollowed(selection: readonly string[]): void {
    const here = selection.filter((peerId) => this.#voices.has(peerId));
    const now = this.#now();
    for (const places of [this.#head, this.#spare])
      for (const peerId of [...places.voices]) places.remove(peerId);
    this.#head.fill(here.slice(0, this.#k), now);
    this.#spare.fill(here.slice(this.#k, this.#k + 1), now);
  }

  #byRecency(): string[] {
    return [...this.#voices].sort(([, a], [, b]) => b.loudAt - a.loudAt).map(([peerId]) => peerId);
  }

  /** Brings `listenerIds`' consumers to what they are due now. */
  #sync(listenerIds: readonly string[]): ForwardingChange[] {
    const changes: ForwardingChange[] = [];
    const now = this.#now();
    const selected = this.selected;
    for (const listenerId of listenerIds) {
      const listener = this.#listeners.get(listenerId);
      if (!listener) continue;
      const due = new Set(selected.filter((peerId) => peerId !== listenerId).slice(0, this.#k));
      for (const speaker of listener.forwarded) {
        if (due.has(speaker)) continue;
        listener.forwarded.delete(speaker);
        listener.holds.set(speaker, now);
        changes.push({ action: 'pause', listener: listenerId, speaker });
      }
      for (const speaker of due) {
        if (listener.forwarded.has(speaker)) continue;
        const action = listener.holds.has(speaker) ? 'resume' : 'consume';
        listener.forwarded.add(speaker);
        listener.holds.set(speaker, now);
        changes.push({ action, listener: listenerId, speaker });
      }
      changes.push(...this.#release(listenerId, listener));
    }
    return changes;
  }

  /** Closes the consumers past the bound, the least recently forwarded first. */
  #release(listenerId: string, listener: Listener): ForwardingChange[] {
    const bound = this.#heldPerForwarded * this.#k;
    if (listener.holds.size <= bound) return [];
    const paused = [...listener.holds]
      .filter(([speaker]) => !listener.forwarded.has(speaker))
      .sort(([, a], [, b]) => a - b);
    const changes: ForwardingChange[] = [];
    for (const [speaker] of paused.slice(0, listener.holds.size - bound)) {
      listener.holds.delete(speaker);
      changes.push({ action: 'close', listener: listenerId, speaker });
    }
    return changes;
  }
}
