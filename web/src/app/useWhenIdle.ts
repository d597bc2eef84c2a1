import { useEffect, useRef } from 'react';

/** At most this long after the first paint, `task` runs even if the browser is never idle. */
const IDLE_TIMEOUT_MS = 3000;

/**
 * Runs `task` once after the component is first on screen, when the browser has nothing
 * more urgent to do (requestIdleCallback; a timer where that is missing, as in Safari).
 */
export function useWhenIdle(task: () => void): void {
  const latest = useRef(task);
  latest.current = task;
  useEffect(() => {
    const run = () => latest.current();
    if (typeof window.requestIdleCallback === 'function') {
      const handle = window.requestIdleCallback(run, { timeout: IDLE_TIMEOUT_MS });
      return () => window.cancelIdleCallback(handle);
    }
    const timer = window.setTimeout(run, 0);
    return () => window.clearTimeout(timer);
  }, []);
}
