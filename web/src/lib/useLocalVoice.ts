/**
 * Your own voice as the page hears it: its level (0..1) and whether you are speaking, from a
 * level subscription (a room's or a call's). Speaking starts above a level that speech at a
 * normal distance passes and quiet rooms do not, and lasts a moment after the last loud
 * sample, so the ring does not flicker between syllables.
 */
import { useEffect, useState } from 'react';

/** Above this level, the microphone carries voice (levelMeter scales speech to about 0.2–0.8). */
export const SPEAKING_LEVEL = 0.12;
/** Speaking lasts this long after the last sample above the level. */
export const SPEAKING_TAIL_MS = 400;

export interface LocalVoice {
  level: number;
  speaking: boolean;
}

export function useLocalVoice(
  subscribe: ((listener: (level: number) => void) => () => void) | null,
): LocalVoice {
  const [voice, setVoice] = useState<LocalVoice>({ level: 0, speaking: false });
  useEffect(() => {
    setVoice({ level: 0, speaking: false });
    if (!subscribe) return;
    let loudAt = Number.NEGATIVE_INFINITY;
    return subscribe((level) => {
      const now = performance.now();
      if (level > SPEAKING_LEVEL) loudAt = now;
      const speaking = now - loudAt < SPEAKING_TAIL_MS;
      // Levels in steps of 5%, so a steady voice does not redraw the page ten times a second.
      const rounded = Math.round(level * 20) / 20;
      setVoice((current) =>
        current.level === rounded && current.speaking === speaking ? current : { level: rounded, speaking },
      );
    });
  }, [subscribe]);
  return voice;
}
