/**
 * The microphones or speakers to choose from, and the one chosen, for the device pickers: listed
 * when the picker shows and again whenever a device comes or goes (`devicechange`).
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import {
  type AudioDevice,
  type AudioDeviceKind,
  audioDeviceChoices,
  listAudioDevices,
  subscribeAudioDevices,
} from '../media/audioDevices.ts';

export interface AudioDeviceList {
  /** The devices present; null where the browser cannot list (or, for speakers, switch) them. */
  devices: readonly AudioDevice[] | null;
  /** The chosen device ('' = the system default). */
  chosen: string;
}

export function useAudioDevices(kind: AudioDeviceKind): AudioDeviceList {
  const [devices, setDevices] = useState<readonly AudioDevice[] | null>(null);
  const chosen = useSyncExternalStore(subscribeAudioDevices, () => audioDeviceChoices()[kind]);
  useEffect(() => {
    let current = true;
    const list = () =>
      void listAudioDevices(kind).then((listed) => {
        if (current) setDevices(listed);
      });
    list();
    navigator.mediaDevices?.addEventListener?.('devicechange', list);
    return () => {
      current = false;
      navigator.mediaDevices?.removeEventListener?.('devicechange', list);
    };
  }, [kind]);
  return { devices, chosen };
}
