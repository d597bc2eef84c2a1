/**
 * Code-split routes: the page's chunk loads on first visit, and a chunk that does
 * not arrive within the spec's 120 s fails the route, which then shows the error page.
 */
import { CHUNK_LOAD_TIMEOUT_MS } from '@voice/protocol';

export function withChunkTimeout<T>(load: Promise<T>, timeoutMs = CHUNK_LOAD_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`page did not load within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  return Promise.race([load, timeout]).finally(() => clearTimeout(timer));
}
