/**
 * /api/health: whether the process runs, and whether it can serve: the database (and Redis) answer
 * in time and the media servers are known.
 */
import type { Base } from '../wiring.ts';
import { type MediaServersHealth, Readiness } from './Readiness.ts';
import { healthRoutes } from './routes.ts';

export function wireHealth(
  { db, link, logger }: Base,
  { mediaServers }: { mediaServers: MediaServersHealth },
) {
  return { routes: [healthRoutes(new Readiness({ db, redis: link, mediaServers, logger })).routes()] };
}
