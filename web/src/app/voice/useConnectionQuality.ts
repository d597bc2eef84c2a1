/**
 * The quality of a voice connection, from its statistics every few seconds while it lasts and the
 * page shows: a background tab (and every page of the load tester) does not ask for them; back in
 * view it asks at once, the loss measured afresh from then.
 */
import { useEffect, useState } from 'react';
import {
  assess,
  type ConnectionQuality,
  type ConnectionSample,
  sampleOf,
} from '../../lib/connectionQuality.ts';
import { whileVisible } from '../../lib/pageVisibility.ts';

const INTERVAL_MS = 2000;

export function useConnectionQuality(
  stats: (() => Promise<RTCStatsReport[]>) | null,
  key: string | null,
): ConnectionQuality | null {
  const [quality, setQuality] = useState<ConnectionQuality | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new connection (key) starts over; stats is read fresh each time
  useEffect(() => {
    setQuality(null);
    if (!stats || !key) return;
    return whileVisible(() => {
      let previous: ConnectionSample | null = null;
      let stopped = false;
      const look = async () => {
        try {
          const sample = sampleOf(await stats());
          if (stopped) return;
          setQuality(assess(previous, sample));
          previous = sample;
        } catch (error) {
          console.debug('Connection statistics unavailable', error);
        }
      };
      void look();
      const timer = window.setInterval(() => void look(), INTERVAL_MS);
      return () => {
        stopped = true;
        window.clearInterval(timer);
      };
    });
  }, [key]);
  return quality;
}
