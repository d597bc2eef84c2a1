/**
 * Media servers and the API: how a media server makes itself known on the bus, and
 * the path of its signalling endpoint (protoo over WebSocket).
 */

/** Path of a media server's signalling endpoint. */
export const MEDIA_SOCKET_PATH = '/rtc';

/** Default port of a media server running as its own process (MEDIA_PORT). */
export const MEDIA_DEFAULT_PORT = 4443;

/** Bus channel on which media servers announce themselves. */
export const MEDIA_ANNOUNCE_CHANNEL = 'media-servers';

/** How often a media server announces itself, and how long the API trusts one announcement. */
export const MEDIA_ANNOUNCE = {
  intervalMs: 2000,
  /** A media server not heard from for this long is taken out of placement. */
  ttlMs: 10_000,
} as const;

/** What a media server carries, as it announces it. */
export interface MediaServerLoad {
  /** Live mediasoup workers. */
  workers: number;
  /** Routers (one per room) across those workers. */
  routers: number;
}

/** A media server's periodic announcement; `gone` says it is closing. */
export interface MediaServerAnnouncement {
  /** Random per process start: a restarted media server is a new one. */
  id: string;
  /** Where browsers reach its signalling endpoint (ws: or wss: URL ending in MEDIA_SOCKET_PATH). */
  url: string;
  load: MediaServerLoad;
  gone?: true;
}
