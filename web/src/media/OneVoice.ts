/**
 * One voice at a time (issue 19): the person's microphone goes into a group room or a 1:1 call,
 * never both. The room and the call each say here what they hold (`hold`); before one of them
 * takes the microphone it asks here (`claim`), which puts the question to the person ("Leave
 * Walk Lounge and answer Bob?") and, on yes, leaves the other first. The API holds to the same
 * rule by itself (api/src/calls/OneVoice.ts); this spares the person its surprises.
 */

/** What can hold the microphone. */
export type VoiceKind = 'room' | 'call';

/** The room or call the microphone is in now. */
export interface HeldVoice {
  kind: VoiceKind;
  /** The room's name, or the other party's in a call. */
  name: string;
  /** Leaves the room, or hangs up; resolves once the microphone is out of it. */
  leave(): Promise<void> | void;
}

/** What wants the microphone: a call to answer or to place (`name`: the other person), or a room. */
export type VoiceClaim =
  | { kind: 'call'; action: 'answer' | 'call'; name: string }
  | { kind: 'room'; name: string | null };

/** The question put to the person: leave `held` for `claim`? */
export interface VoiceQuestion {
  claim: VoiceClaim;
  held: HeldVoice;
}

export class OneVoice {
  readonly #held = new Map<VoiceKind, HeldVoice>();
  readonly #listeners = new Set<() => void>();
  #asking: { question: VoiceQuestion; answer: (yes: boolean) => void } | null = null;

  /** The question waiting for the person's answer, if any. */
  get question(): VoiceQuestion | null {
    return this.#asking?.question ?? null;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** `voice` holds the microphone until the returned function is called. */
  hold(voice: HeldVoice): () => void {
    this.#held.set(voice.kind, voice);
    return () => {
      if (this.#held.get(voice.kind) === voice) this.#held.delete(voice.kind);
    };
  }

  /**
   * Before `claim` takes the microphone: true at once when nothing else holds it; otherwise asks
   * the person, and on yes leaves what holds it and answers true. False when they said no (or a
   * newer question replaced this one).
   */
  async claim(claim: VoiceClaim): Promise<boolean> {
    const held = this.#held.get(claim.kind === 'room' ? 'call' : 'room');
    if (!held) return true;
    this.#asking?.answer(false);
    const yes = await new Promise<boolean>((resolve) => {
      const asking = {
        question: { claim, held },
        answer: (yes: boolean) => {
          if (this.#asking === asking) this.#asking = null;
          resolve(yes);
          this.#emit();
        },
      };
      this.#asking = asking;
      this.#emit();
    });
    if (!yes) return false;
    await held.leave();
    if (this.#held.get(held.kind) === held) this.#held.delete(held.kind);
    return true;
  }

  /** Takes back the question about `claim`, if it is the one open (the call stopped ringing). */
  withdraw(claim: VoiceClaim): void {
    if (this.#asking?.question.claim === claim) this.#asking.answer(false);
  }

  /** The person's answer to the question (nothing when none is asked). */
  answer(yes: boolean): void {
    this.#asking?.answer(yes);
  }

  /** Sign-out: a question still open is answered no, and nothing is held. */
  dispose(): void {
    this.#asking?.answer(false);
    this.#held.clear();
    this.#listeners.clear();
  }

  #emit(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
