/**
 * Asks a media server whether it lives: GET /health on the origin of its announced `/rtc` URL
 * (a media server run apart answers `{ ok, id, load }` there; see media-server/src/main.ts).
 */

/**
 * What a probe found. `alive`: the server answered with its own id. `refused`: nothing listens
 * at its address any more (connection refused or reset), or another server answers there (it
 * restarted with a new id): it is gone. `unanswered`: no answer within the deadline (stopped,
 * wedged, or its host is down). `unknown`: something else answered, or the request failed in a
 * way that says nothing of the server (a certificate the API does not trust, a name it cannot
 * resolve, an app's own page behind a proxy): no verdict.
 */
export type ProbeResult = 'alive' | 'refused' | 'unanswered' | 'unknown';

/** Failures of the connection itself, which only a closed or missing listener gives. */
const REFUSED = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET']);

/** The largest /health answer read; a media server's is under 200 bytes. */
const MAX_BODY = 4096;

/** Probes the media server `id` announced at `url` (ws: or wss:), waiting at most `timeoutMs`. */
export async function probeMediaServer(id: string, url: string, timeoutMs: number): Promise<ProbeResult> {
  const health = new URL('/health', url);
  health.protocol = health.protocol === 'wss:' ? 'https:' : 'http:';
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(health, {
      signal,
      redirect: 'manual',
      headers: { accept: 'application/json' },
    });
    const text = await readCapped(response);
    if (response.status !== 200) return 'unknown';
    const answeredId = answeredIdOf(text);
    if (answeredId === null) return 'unknown';
    return answeredId === id ? 'alive' : 'refused';
  } catch (error) {
    if (signal.aborted) return 'unanswered';
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    return typeof code === 'string' && REFUSED.has(code) ? 'refused' : 'unknown';
  }
}

async function readCapped(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY || !response.body) {
    await response.body?.cancel();
    return '';
  }
  const text = await response.text();
  return text.length > MAX_BODY ? '' : text;
}

/** The `id` of a media server's /health answer, or null for any other body. */
function answeredIdOf(text: string): string | null {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== 'object' || body === null) return null;
    const { ok, id } = body as { ok?: unknown; id?: unknown };
    return ok === true && typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}
