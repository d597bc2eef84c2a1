/**
 * When your microphone is sent (issue 19, item 5): with push-to-talk while the key is held
 * and for a short tail after it is released; with voice activity while your level is above the
 * sensitivity you chose (and a moment after, so words are not cut), or always when you chose
 * none. Muting is separate and always wins. Pure timing logic: the caller feeds key presses and
 * levels and applies `open` to the track it sends.
 */
import { VOICE_LIMITS, type VoiceSettings } from '@voice/protocol';

/** Voice activity: the gate stays open this long after the level falls below the sensitivity. */
export const VOICE_ACTIVITY_HANGOVER_MS = 400;

/** dBFS of a level from levelMeter (RMS scaled by 4, capped at 1). */
export function levelToDb(level: number): number {
  return level <= 0
    ? VOICE_LIMITS.sensitivityMinDb
    : Math.max(VOICE_LIMITS.sensitivityMinDb, 20 * Math.log10(level / 4));
}

/** Whether a gate with `settings` opens by your level (voice activity with a sensitivity set). */
export function gateHearsLevel(settings: Pick<VoiceSettings, 'inputMode' | 'sensitivityDb'>): boolean {
  return settings.inputMode === 'voice' && settings.sensitivityDb !== null;
}

export interface GateTimers {
  now(): number;
  setTimeout(task: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: GateTimers = {
  now: () => performance.now(),
  setTimeout: (task, ms) => setTimeout(task, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class VoiceGate {
  #settings: Pick<VoiceSettings, 'inputMode' | 'sensitivityDb'>;
  readonly #onChange: (open: boolean) => void;
  readonly #timers: GateTimers;
  #open: boolean;
  #keyDown = false;
  #loudAt = Number.NEGATIVE_INFINITY;
  #closing: unknown = null;

  constructor(
    settings: Pick<VoiceSettings, 'inputMode' | 'sensitivityDb'>,
    onChange: (open: boolean) => void,
    timers: GateTimers = realTimers,
  ) {
    this.#settings = settings;
    this.#onChange = onChange;
    this.#timers = timers;
    this.#open = this.#wanted();
  }

  get open(): boolean {
    return this.#open;
  }

  configure(settings: Pick<VoiceSettings, 'inputMode' | 'sensitivityDb'>): void {
    this.#settings = settings;
    this.#keyDown = false;
    this.#cancelClose();
    this.#set(this.#wanted());
  }

  keyDown(): void {
    if (this.#settings.inputMode !== 'push-to-talk') return;
    this.#keyDown = true;
    this.#cancelClose();
    this.#set(true);
  }

  keyUp(): void {
    if (this.#settings.inputMode !== 'push-to-talk' || !this.#keyDown) return;
    this.#keyDown = false;
    this.#closeAfter(VOICE_LIMITS.pushToTalkTailMs);
  }

  /** A level from the meter (0..1). */
  level(level: number): void {
    const { sensitivityDb } = this.#settings;
    if (!gateHearsLevel(this.#settings) || sensitivityDb === null) return;
    if (levelToDb(level) >= sensitivityDb) {
      this.#loudAt = this.#timers.now();
      this.#cancelClose();
      this.#set(true);
    } else if (this.#open && this.#closing === null) {
      const left = VOICE_ACTIVITY_HANGOVER_MS - (this.#timers.now() - this.#loudAt);
      this.#closeAfter(Math.max(0, left));
    }
  }

  dispose(): void {
    this.#cancelClose();
  }

  #wanted(): boolean {
    if (this.#settings.inputMode === 'push-to-talk') return this.#keyDown;
    return this.#settings.sensitivityDb === null;
  }

  #closeAfter(ms: number): void {
    this.#cancelClose();
    this.#closing = this.#timers.setTimeout(() => {
      this.#closing = null;
      this.#set(false);
    }, ms);
  }

  #cancelClose(): void {
    if (this.#closing !== null) this.#timers.clearTimeout(this.#closing);
    this.#closing = null;
  }

  #set(open: boolean): void {
    if (open === this.#open) return;
    this.#open = open;
    this.#onChange(open);
  }
}
