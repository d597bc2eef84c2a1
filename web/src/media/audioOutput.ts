/**
 * Where the other party's voice plays: an <audio> element (kept hidden in the page) and,
 * where the browser allows it (setSinkId), the output device the person chose.
 */

/** An audio output the browser lets the page choose. */
export interface OutputDevice {
  deviceId: string;
  label: string;
}

type SinkElement = HTMLAudioElement & { setSinkId?: (deviceId: string) => Promise<void> };

/** Whether this browser can switch a page's audio output. */
export function canChooseOutput(): boolean {
  return typeof HTMLMediaElement !== 'undefined' && 'setSinkId' in HTMLMediaElement.prototype;
}

/** The outputs to choose from; empty where the browser cannot switch or will not list them. */
export async function listOutputDevices(): Promise<OutputDevice[]> {
  if (!canChooseOutput() || !navigator.mediaDevices?.enumerateDevices) return [];
  const devices = await navigator.mediaDevices.enumerateDevices();
  return devices
    .filter((device) => device.kind === 'audiooutput' && device.deviceId)
    .map((device, index) => ({ deviceId: device.deviceId, label: device.label || `#${index + 1}` }));
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
    await this.#element?.setSinkId?.(deviceId);
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
    if (this.#sinkId) void element.setSinkId?.(this.#sinkId).catch(() => {});
    this.#element = element;
    return element;
  }
}
