/**
 * Who consumes whom in a room, apart from the room's bookkeeping (ARCHITECTURE.md, "Forwarding
 * is a policy"). A policy is told what happens in the room, by peer id: members joining,
 * leaving or getting a receiving transport, voices appearing and going, audio levels. It answers
 * with the changes the room is to make to its members' consumers; the room applies them and
 * skips what no longer fits (a member gone, a voice closed, a member that cannot receive).
 *
 * `ForwardAll`: every joined member consumes every other voice (tests and comparisons).
 * `LoudestK` (LoudestK.ts, jitsi-videobridge's last-N), the rooms' policy: answers audio levels
 * with `pause`/`resume` of the consumers of voices that fall out of or come into the K loudest,
 * `consume` for a voice not held, and `close` for those it stops holding.
 */

/** One change to a member's consumer of another member's voice. */
export interface ForwardingChange {
  /**
   * `consume`: give `listener` a consumer of `speaker`'s voice (nothing if it has one);
   * `pause`/`resume`: stop or restart forwarding it, the consumer kept; `close`: drop it (the
   * listener is told `consumerClosed`).
   */
  action: 'consume' | 'pause' | 'resume' | 'close';
  listener: string;
  speaker: string;
}

/** A voice above the audio-level observer's threshold, in dBov (-127 to 0, loudest 0). */
export interface SpeakerLevel {
  peerId: string;
  volume: number;
}

/** Where a listener stands with a voice: forwarded to them, held paused, or not held. */
export type ForwardingState = 'forwarded' | 'held' | 'none';

/** Decides who consumes whom in one room. Every method answers the changes it calls for now. */
export interface ForwardingPolicy {
  /** `peerId` joined (it may join to send only: the room then skips consumes for it). */
  peerJoined(peerId: string): ForwardingChange[];
  /** A joined `peerId` got a receiving transport, so it can now take what it was due. */
  peerCanReceive(peerId: string): ForwardingChange[];
  /** A joined `peerId` left; its consumers and voice went with it. */
  peerLeft(peerId: string): ForwardingChange[];
  /** `peerId`'s voice is there, its producer made and its owner told. */
  producerAdded(peerId: string): ForwardingChange[];
  /** `peerId`'s voice closed; the worker closed its consumers with it. */
  producerRemoved(peerId: string): ForwardingChange[];
  /** The voices above the threshold now, loudest first; [] when the room fell silent. */
  audioLevels(levels: readonly SpeakerLevel[]): ForwardingChange[];
  /**
   * What `listener` is due of `speaker`'s voice now: a consumer made on a `consume` is resumed
   * once its member took it only if it is still forwarded, and closed if no longer held.
   */
  stateOf(listener: string, speaker: string): ForwardingState;
  /**
   * `listener`'s consumer of `speaker`'s voice could not be made (refused, timed out) and is
   * gone: forget it; answers the `consume` that asks for it again if it is still forwarded.
   */
  consumerLost(listener: string, speaker: string): ForwardingChange[];
  /** The voices forwarded to anyone now (members hear levels of those only); null: every voice. */
  forwardedVoices(): ReadonlySet<string> | null;
  /** The room's K changed (its settings): the changes that makes. */
  setLoudest(k: number): ForwardingChange[];
  /**
   * The voices chosen for the room now, in their places (a policy that chooses: LoudestK); a
   * room across media servers has one part choose for all (RoomLinks).
   */
  readonly selection?: readonly string[];
  /**
   * Takes the voices another part of the room chose (`selection`, as it read there), instead of
   * choosing from the levels here; null: choose here again (this part leads now).
   */
  follow?(selection: readonly string[] | null): ForwardingChange[];
}

/** Every joined member consumes every other member's voice: today's rooms, and small ones. */
export class ForwardAll implements ForwardingPolicy {
  /** Joined members, in the order they joined. */
  readonly #listeners = new Set<string>();
  /** Members with a voice. */
  readonly #speakers = new Set<string>();

  peerJoined(peerId: string): ForwardingChange[] {
    this.#listeners.add(peerId);
    return this.#everyVoiceFor(peerId);
  }

  peerCanReceive(peerId: string): ForwardingChange[] {
    return this.#listeners.has(peerId) ? this.#everyVoiceFor(peerId) : [];
  }

  peerLeft(peerId: string): ForwardingChange[] {
    this.#listeners.delete(peerId);
    this.#speakers.delete(peerId);
    return [];
  }

  producerAdded(peerId: string): ForwardingChange[] {
    this.#speakers.add(peerId);
    return [...this.#listeners]
      .filter((listener) => listener !== peerId)
      .map((listener) => ({ action: 'consume', listener, speaker: peerId }));
  }

  producerRemoved(peerId: string): ForwardingChange[] {
    this.#speakers.delete(peerId);
    return [];
  }

  // Everyone is forwarded whatever their level.
  audioLevels(_levels: readonly SpeakerLevel[]): ForwardingChange[] {
    return [];
  }

  stateOf(listener: string, speaker: string): ForwardingState {
    return this.#listeners.has(listener) && this.#speakers.has(speaker) ? 'forwarded' : 'none';
  }

  consumerLost(listener: string, speaker: string): ForwardingChange[] {
    return this.stateOf(listener, speaker) === 'forwarded' ? [{ action: 'consume', listener, speaker }] : [];
  }

  forwardedVoices(): null {
    return null;
  }

  setLoudest(_k: number): ForwardingChange[] {
    return [];
  }

  #everyVoiceFor(listener: string): ForwardingChange[] {
    return [...this.#speakers]
      .filter((speaker) => speaker !== listener)
      .map((speaker) => ({ action: 'consume', listener, speaker }));
  }
}
