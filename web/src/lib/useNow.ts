import { useEffect, useState } from 'react';

/** Refresh for "5 minutes ago" texts: often enough for the minute to stay right. */
const TICK_MS = 30_000;

/** The current time, re-rendering every TICK_MS while `ticking`. */
export function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
