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
/** How often a meter of your voice redraws (4 a second: it still follows words). */
export const METER_EVERY_MS = 250;

/** A subscription to your voice's level (0..1, ten times a second); returns its end. */
export type LevelSubscription = ((listener: (level: number) => void) => () => void) | null;

export interface LocalVoice {
  level: number;
  speaking: boolean;
}

/** Follows speaking from levels: above SPEAKING_LEVEL, and for SPEAKING_TAIL_MS after. */
function speakingFollower(): (level: number) => boolean {
  let loudAt = Number.NEGATIVE_INFINITY;
  return (level) => {
    const now = performance.now();
    if (level > SPEAKING_LEVEL) loudAt = now;
    return now - loudAt < SPEAKING_TAIL_MS;
  };
}

/**
 * Your level and whether you speak, as a meter shows them: at most every METER_EVERY_MS (the level
 * comes ten times a second; each redraw of a moving bar costs a frame of the whole window, which
 * without a GPU is a quarter of a core at that rate) and in steps of 5%.
 */
export function useLocalVoice(subscribe: LevelSubscription): LocalVoice {
  const [voice, setVoice] = useState<LocalVoice>({ level: 0, speaking: false });
  useEffect(() => {
    setVoice({ level: 0, speaking: false });
    if (!subscribe) return;
    const follow = speakingFollower();
    let latest: LocalVoice = { level: 0, speaking: false };
    const show = () =>
      setVoice((current) =>
        current.level === latest.level && current.speaking === latest.speaking ? current : latest,
      );
    const timer = window.setInterval(show, METER_EVERY_MS);
    const unsubscribe = subscribe((level) => {
      latest = { level: Math.round(level * 20) / 20, speaking: follow(level) };
    });
    return () => {
      window.clearInterval(timer);
      unsubscribe();
    };
  }, [subscribe]);
  return voice;
}

/**
 * Only whether you speak: a re-render when you start or stop, not with every level. For what
 * draws much (a room's people), which must not redraw ten times a second while you talk.
 */
export function useLocalSpeaking(subscribe: LevelSubscription): boolean {
  const [speaking, setSpeaking] = useState(false);
  useEffect(() => {
    setSpeaking(false);
    if (!subscribe) return;
    const follow = speakingFollower();
    return subscribe((level) => setSpeaking(follow(level)));
  }, [subscribe]);
  return speaking;
}
