/**
 * Where the other party's voice plays: an <audio> element (kept hidden in the page) and,
 * where the browser allows it (setSinkId), the output device the person chose.
 */
import { reportFallback } from './audioDevices.ts';

/** Something that plays to an output the page may choose: an <audio> element, an AudioContext. */
export interface SinkTarget {
  setSinkId?: (deviceId: string) => Promise<void>;
}

type SinkElement = HTMLAudioElement & SinkTarget;

/**
 * Sends `target`'s audio to `deviceId` ('' = the system default) where the browser allows it.
 * A device that is gone (unplugged since it was chosen) gives way to the default, and the
 * person is told.
 */
export async function setSink(target: SinkTarget, deviceId: string): Promise<void> {
  if (typeof target.setSinkId !== 'function') return;
  try {
    await target.setSinkId(deviceId);
  } catch (error) {
    if (!deviceId) throw error;
    reportFallback('output');
    await target.setSinkId('');
  }
}

export class RemoteAudio {
  #element: SinkElement | null = null;
  #sinkId = '';

  /** Plays `stream` (the other party's audio). */
  play(stream: MediaStream): void {
    const element = this.#ensureElement();
    element.srcObject = stream;
    element.play().catch((error: unknown) => console.info('The call audio could not start playing', error));
  }

  /** Sends the audio to `deviceId` ('' = the system default). */
  async setOutput(deviceId: string): Promise<void> {
    this.#sinkId = deviceId;
    if (this.#element) await setSink(this.#element, deviceId);
  }

  /** Stops playing and removes the element. */
  close(): void {
    if (!this.#element) return;
    this.#element.pause();
    this.#element.srcObject = null;
    this.#element.remove();
    this.#element = null;
  }

  #ensureElement(): SinkElement {
    if (this.#element) return this.#element;
    const element: SinkElement = document.createElement('audio');
    element.autoplay = true;
    element.hidden = true;
    element.dataset.sound = 'call';
    document.body.append(element);
    if (this.#sinkId) void setSink(element, this.#sinkId).catch(() => {});
    this.#element = element;
    return element;
  }
}
