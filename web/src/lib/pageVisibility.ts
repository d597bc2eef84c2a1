/** Whether the page is hidden (a background tab, a minimised window), and when that changes. */

export function pageHidden(): boolean {
  return typeof document !== 'undefined' && document.visibilityState === 'hidden';
}

export function onVisibilityChange(listener: () => void): () => void {
  if (typeof document === 'undefined') return () => {};
  document.addEventListener('visibilitychange', listener);
  return () => document.removeEventListener('visibilitychange', listener);
}

/**
 * Runs `start` while the page shows: at once if it does, again each time it comes back; what
 * `start` returns stops it when the page is hidden and when the returned function is called.
 * For work only someone looking needs (a connection's quality, polled from its statistics).
 */
export function whileVisible(start: () => () => void): () => void {
  let stop: (() => void) | null = null;
  const follow = () => {
    if (pageHidden()) {
      stop?.();
      stop = null;
    } else {
      stop ??= start();
    }
  };
  const unsubscribe = onVisibilityChange(follow);
  follow();
  return () => {
    unsubscribe();
    stop?.();
    stop = null;
  };
}
