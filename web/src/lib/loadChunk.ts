/**
 * Code-split chunks (pages, the signed-in providers, the call overlay, the call and room
 * runtimes) load through here. A chunk that does not arrive within the spec's 120 s fails.
 *
 * A read that fails is tried again, as a person who just lost the network expects: while the
 * browser is offline the next try waits for it to come back (for as long as the 120 s allow),
 * otherwise it waits CHUNK_RETRY_DELAYS_MS between tries and gives up after the last. Chromium
 * fetches a failed dynamic import again on the next `import()`; a stylesheet Vite's preload
 * failed to load is not asked for again by Vite (it remembers each one it added), so its
 * `<link>` is put back fresh before each try.
 */
import { CHUNK_LOAD_TIMEOUT_MS } from '@voice/protocol';

/** The waits between tries while online: four tries in all, the last ~7 s after the first. */
export const CHUNK_RETRY_DELAYS_MS = [1000, 2000, 4000] as const;

/** What loadChunk needs of the page; the browser's own by default. */
export interface ChunkEnvironment {
  online(): boolean;
  /** Calls `listener` once when the browser comes back online; returns an unsubscribe. */
  onOnline(listener: () => void): () => void;
  /** Puts back the stylesheets that failed to load, so that the next try fetches them. */
  rearmStylesheets(): void;
}

const browser: ChunkEnvironment = {
  online: () => navigator.onLine,
  onOnline: (listener) => {
    window.addEventListener('online', listener, { once: true });
    return () => window.removeEventListener('online', listener);
  },
  rearmStylesheets,
};

/** Reads `load` (an `import()`), trying again as described above. */
export function loadChunk<T>(
  load: () => Promise<T>,
  timeoutMs = CHUNK_LOAD_TIMEOUT_MS,
  environment: ChunkEnvironment = browser,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let waiting: (() => void) | null = null;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      waiting?.();
      outcome();
    };
    const deadline = setTimeout(
      () => finish(() => reject(new Error(`page did not load within ${timeoutMs / 1000} s`))),
      timeoutMs,
    );
    let retries = 0;
    const attempt = () => {
      waiting = null;
      load().then(
        (module) => finish(() => resolve(module)),
        (error: unknown) => {
          if (settled) return;
          if (!environment.online()) {
            waiting = environment.onOnline(again);
            return;
          }
          const delay = CHUNK_RETRY_DELAYS_MS[retries++];
          if (delay === undefined) {
            finish(() => reject(error));
            return;
          }
          const timer = setTimeout(again, delay);
          waiting = () => clearTimeout(timer);
        },
      );
    };
    const again = () => {
      if (settled) return;
      environment.rearmStylesheets();
      attempt();
    };
    attempt();
  });
}

/**
 * A `<link rel="stylesheet">` whose load failed has no sheet and is never fetched again: a fresh
 * copy in its place is. One still loading has no sheet either, but it is left alone: it is not
 * marked `data-failed` (set here by the error listener every stylesheet link gets).
 */
function rearmStylesheets(): void {
  for (const link of document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"][data-failed]')) {
    const fresh = link.cloneNode() as HTMLLinkElement;
    fresh.removeAttribute('data-failed');
    link.replaceWith(fresh);
  }
}

/** Marks each stylesheet link that fails to load (error events do not bubble: captured). */
export function watchStylesheetFailures(): void {
  document.addEventListener(
    'error',
    (event) => {
      const target = event.target;
      if (target instanceof HTMLLinkElement && target.rel === 'stylesheet')
        target.setAttribute('data-failed', '');
    },
    true,
  );
}
