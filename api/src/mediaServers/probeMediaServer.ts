/**
 * Asks a media server whether it lives: GET /health on the origin of its announced `/rtc` URL
 * (a media server run apart answers `{ ok, id, load }` there; see media-server/src/main.ts).
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

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
const REFUSED = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The largest /health answer read; a media server's is under 200 bytes. */
const MAX_BODY = 4096;

/**
 * Probes the media server `id` announced at `url` (ws: or wss:), waiting at most `timeoutMs`.
 * Each probe opens a connection of its own (no keep-alive pool): a pooled socket the server
 * closed while idle would fail like a dead server.
 */
export function probeMediaServer(id: string, url: string, timeoutMs: number): Promise<ProbeResult> {
  const health = new URL('/health', url);
  health.protocol = health.protocol === 'wss:' ? 'https:' : 'http:';
  const send = health.protocol === 'https:' ? httpsRequest : httpRequest;
  const signal = AbortSignal.timeout(timeoutMs);
  // Settled once: whatever happens after the first verdict is ignored.
  return new Promise((resolve) => {
    const request = send(
      health,
      { agent: false, signal, headers: { accept: 'application/json' } },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY) chunks.push(chunk);
          else request.destroy();
        });
        response.on('error', () => {});
        response.on('end', () => {
          const answeredId =
            response.statusCode === 200 ? answeredIdOf(Buffer.concat(chunks).toString()) : null;
          if (answeredId === null) resolve('unknown');
          else resolve(answeredId === id ? 'alive' : 'refused');
        });
        response.on('close', () => resolve(signal.aborted ? 'unanswered' : 'unknown'));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (signal.aborted) resolve('unanswered');
      else resolve(error.code !== undefined && REFUSED.has(error.code) ? 'refused' : 'unknown');
    });
    request.end();
  });
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
