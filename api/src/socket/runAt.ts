/** setTimeout's longest delay, about 24.8 days; sessions last longer. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Runs `run` at time `when` (ms since the epoch), however far away; returns a cancel function. */
export function runAt(when: number, run: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const left = when - Date.now();
    if (left <= 0) {
      run();
      return;
    }
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
