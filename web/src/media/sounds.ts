/**
 * The app's sounds, made by the project: synthesized here as small WAV files, so nothing is
 * downloaded and nothing licensed is shipped. Played through <audio> elements, which loop
 * and keep their volume the way the spec asks (ringtone 0.8, looping; others 0.7).
 */
import { SOUND, SOUNDS_SETTING_KEY } from '@voice/protocol';

const SAMPLE_RATE = 22_050;

/** A note: frequencies played together (Hz), for `seconds`; an empty list is silence. */
export interface Note {
  frequencies: readonly number[];
  seconds: number;
}

/** Two rising chimes, twice, then a pause: about 2.6 s, looped while a call rings. */
export const RINGTONE: readonly Note[] = [
  { frequencies: [659.25, 1318.5], seconds: 0.18 },
  { frequencies: [], seconds: 0.06 },
  { frequencies: [880, 1760], seconds: 0.28 },
  { frequencies: [], seconds: 0.18 },
  { frequencies: [659.25, 1318.5], seconds: 0.18 },
  { frequencies: [], seconds: 0.06 },
  { frequencies: [880, 1760], seconds: 0.28 },
  { frequencies: [], seconds: 1.4 },
];

/** A short rising two-note chime (about 0.4 s): a friend request or a room invitation arrived. */
export const NOTIFICATION_CHIME: readonly Note[] = [
  { frequencies: [783.99, 1567.98], seconds: 0.12 },
  { frequencies: [], seconds: 0.04 },
  { frequencies: [1046.5, 2093], seconds: 0.22 },
];

/** The sounds setting: on unless the person turned sounds off (SOUNDS_SETTING_KEY is "off"). */
export function soundsEnabled(): boolean {
  try {
    return window.localStorage.getItem(SOUNDS_SETTING_KEY) !== 'off';
  } catch {
    return true;
  }
}

/** Stores the sounds setting; a storage that refuses (some privacy modes) keeps the old one. */
export function setSoundsEnabled(enabled: boolean): void {
  try {
    if (enabled) window.localStorage.removeItem(SOUNDS_SETTING_KEY);
    else window.localStorage.setItem(SOUNDS_SETTING_KEY, 'off');
  } catch (error) {
    console.debug('The sounds setting could not be stored', error);
  }
}

/** 16-bit mono PCM samples of `notes`, each note faded in and out so it does not click. */
export function synthesize(notes: readonly Note[], sampleRate = SAMPLE_RATE): Int16Array {
  const total = notes.reduce((sum, note) => sum + Math.round(note.seconds * sampleRate), 0);
  const samples = new Int16Array(total);
  let offset = 0;
  for (const note of notes) {
    const length = Math.round(note.seconds * sampleRate);
    const fade = Math.min(length / 2, sampleRate * 0.02);
    for (let i = 0; i < length && note.frequencies.length > 0; i++) {
      const envelope = Math.min(1, i / fade, (length - 1 - i) / fade);
      let value = 0;
      for (const [index, frequency] of note.frequencies.entries()) {
        // Overtones quieter than the note itself.
        value += Math.sin((2 * Math.PI * frequency * i) / sampleRate) / (index + 1);
      }
      samples[offset + i] = Math.round((value / note.frequencies.length) * envelope * 0.9 * 32767);
    }
    offset += length;
  }
  return samples;
}

/** A RIFF/WAVE file of 16-bit mono `samples`. */
export function wavFile(samples: Int16Array, sampleRate = SAMPLE_RATE): ArrayBuffer {
  const buffer = new ArrayBuffer(44 + samples.length * 2);
  const view = new DataView(buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) view.setUint8(at + i, text.charCodeAt(i));
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + samples.length * 2, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // bytes per second
  view.setUint16(32, 2, true); // bytes per frame
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, samples.length * 2, true);
  for (let i = 0; i < samples.length; i++) view.setInt16(44 + i * 2, samples[i] ?? 0, true);
  return buffer;
}

/**
 * One sound on an <audio> element kept (hidden) in the page, made on first play.
 * `play()` restarts it; a browser that refuses to play before the person interacted with the
 * page is not an error worth more than a log line.
 */
export class Sound {
  readonly #name: string;
  readonly #notes: readonly Note[];
  readonly #loop: boolean;
  readonly #volume: number;
  #audio: HTMLAudioElement | null = null;
  #url: string | null = null;

  constructor(
    name: string,
    notes: readonly Note[],
    { loop = false, volume = SOUND.defaultVolume }: { loop?: boolean; volume?: number } = {},
  ) {
    this.#name = name;
    this.#notes = notes;
    this.#loop = loop;
    this.#volume = volume;
  }

  get playing(): boolean {
    return this.#audio !== null && !this.#audio.paused;
  }

  /** Plays from the start, unless the person turned sounds off. */
  play(): void {
    if (!soundsEnabled()) return;
    const audio = this.#element();
    audio.currentTime = 0;
    audio.play().catch((error: unknown) => console.info(`The ${this.#name} sound could not play`, error));
  }

  stop(): void {
    if (!this.#audio) return;
    this.#audio.pause();
    this.#audio.currentTime = 0;
  }

  /** Stops the sound and removes its element. */
  dispose(): void {
    this.stop();
    this.#audio?.remove();
    if (this.#url) URL.revokeObjectURL(this.#url);
    this.#audio = null;
    this.#url = null;
  }

  #element(): HTMLAudioElement {
    if (this.#audio) return this.#audio;
    this.#url = URL.createObjectURL(new Blob([wavFile(synthesize(this.#notes))], { type: 'audio/wav' }));
    const audio = document.createElement('audio');
    audio.src = this.#url;
    audio.loop = this.#loop;
    audio.volume = this.#volume;
    audio.hidden = true;
    audio.dataset.sound = this.#name;
    document.body.append(audio);
    this.#audio = audio;
    return audio;
  }
}

/** The incoming-call ringtone: looping, at SOUND.ringtoneVolume. */
export function createRingtone(): Sound {
  return new Sound('ringtone', RINGTONE, { loop: true, volume: SOUND.ringtoneVolume });
}

/** The short sound of an arriving friend request or room invitation, at SOUND.defaultVolume. */
export function createNotificationSound(): Sound {
  return new Sound('notification', NOTIFICATION_CHIME);
}
