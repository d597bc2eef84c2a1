/**
 * The health of a media server of its own, for an orchestrator's probes and a load balancer
 * (issue 22, item 3): `/health/live` while the process serves HTTP, `/health/ready` while it
 * can take members (MEDIA_HEALTH_PATHS in the protocol says which is which). `/health` stays
 * as the API's probe knows it: the id and the load.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MEDIA_HEALTH_PATHS, type MediaReadinessResponse } from '@voice/protocol';
import type { MediaServer } from './MediaServer.ts';

/** What readiness reads of the process. */
export interface MediaHealthSources {
  media: Pick<MediaServer, 'id' | 'load' | 'closed' | 'draining'> & {
    pool: { readonly workers: readonly unknown[] };
  };
  /** The Redis link the bus runs on: false from a failed call or a lost connection until Redis answers. */
  redis: { readonly available: boolean };
  /** True from the moment the process was told to stop. */
  closing(): boolean;
}

const OK = 'ok';

export function mediaReadiness({ media, redis, closing }: MediaHealthSources): MediaReadinessResponse {
  const workers = media.closed ? 0 : media.pool.workers.length;
  const checks: MediaReadinessResponse['checks'] = {
    workers: workers > 0 ? OK : 'no mediasoup worker alive',
    redis: redis.available ? OK : 'not answering',
    closing: media.closed ? 'closed' : media.draining ? 'draining' : closing() ? 'closing' : OK,
  };
  const notReady = (Object.keys(checks) as Array<keyof typeof checks>).filter((part) => checks[part] !== OK);
  return { ok: notReady.length === 0, id: media.id, checks, notReady };
}

function answer(response: ServerResponse, status: number, body: unknown, head: boolean): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(head ? undefined : JSON.stringify(body));
}

/**
 * Answers a request for one of the health paths (the query string is ignored) and says so;
 * false for any other path. Only GET and HEAD are answered; anything else gets 405.
 */
export function answerHealth(
  request: IncomingMessage,
  response: ServerResponse,
  sources: MediaHealthSources,
): boolean {
  const path = (request.url ?? '').split('?')[0];
  const known = Object.values(MEDIA_HEALTH_PATHS) as string[];
  if (path === undefined || !known.includes(path)) return false;
  const head = request.method === 'HEAD';
  if (request.method !== 'GET' && !head) {
    response.setHeader('allow', 'GET, HEAD');
    answer(response, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed' } }, false);
    return true;
  }
  const { media } = sources;
  if (path === MEDIA_HEALTH_PATHS.live) {
    answer(response, 200, { ok: true, id: media.id }, head);
  } else if (path === MEDIA_HEALTH_PATHS.ready) {
    const readiness = mediaReadiness(sources);
    answer(response, readiness.ok ? 200 : 503, readiness, head);
  } else {
    answer(response, 200, { ok: true, id: media.id, load: media.load }, head);
  }
  return true;
}
