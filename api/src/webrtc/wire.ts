/** What a browser needs to open a peer connection (/api/webrtc): STUN and TURN credentials. */
import type { Infrastructure } from '../wiring.ts';
import { webrtcRoutes } from './routes.ts';
import { TurnCredentials } from './TurnCredentials.ts';

export function wireWebrtc({ config, limiter, requireAuth }: Infrastructure) {
  const turn = new TurnCredentials({
    turn: config.turn,
    ttlSeconds: config.turnTtlSeconds,
    stunUrls: config.stunUrls,
  });
  return { routes: [webrtcRoutes(turn, limiter, requireAuth).routes()] };
}
