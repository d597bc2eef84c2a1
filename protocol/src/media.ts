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
  /** Most rooms one announcement lists (far above what one server's workers carry). */
  maxRooms: 10_000,
} as const;

/** A media server told to stop (SIGTERM) drains first: its members move, nobody's room ends. */
export const MEDIA_DRAIN = {
  /** Members still connected this long after they were asked to move are disconnected. */
  deadlineMs: 30_000,
} as const;

/**
 * A media server's health, on its own origin: `live` answers while the process serves HTTP
 * (restart it when it does not); `ready` only while it can take members: at least one
 * mediasoup worker alive, Redis answering (its announcements reach the API) and not closing
 * (an orchestrator sends it no one new then). `legacy` is the API's probe (MEDIA_PROBE).
 */
export const MEDIA_HEALTH_PATHS = {
  live: '/health/live',
  ready: '/health/ready',
  legacy: '/health',
} as const;

/** The body of a media server's `/health/ready` (200 when `ok`, else 503). */
export interface MediaReadinessResponse {
  ok: boolean;
  /** The media server's id, as announced on the bus. */
  id: string;
  /** Each part: `ok`, or why it is not ready (`closing`: `closing`, `draining` or `closed`). */
  checks: { workers: string; redis: string; closing: string };
  /** The parts found not ready. */
  notReady: Array<'workers' | 'redis' | 'closing'>;
}

/**
 * When a browser reports that it could not reach a room's media server, the API asks the server
 * itself (GET /health on its origin) before it moves the room: one report is no proof.
 */
export const MEDIA_PROBE = {
  /** A probe not answered within this long counts as unanswered. */
  timeoutMs: 1000,
  /**
   * An unanswered probe takes a server out of placement only once it has also been silent on
   * the bus this long (more than one missed announcement): a busy server is not a dead one.
   * Refused connections and another server's id at its address are proof enough at once.
   */
  silentMs: 3000,
  /** A server found alive is not probed again for this long, however many reports come. */
  trustMs: 2000,
} as const;

/** What a media server carries, as it announces it. */
export interface MediaServerLoad {
  /** Live mediasoup workers. */
  workers: number;
  /** Routers (one per room) across those workers. */
  routers: number;
  /** Joined room members across its rooms. Absent from older media servers. */
  members?: number;
  /** Consumers (voices forwarded to a member) across its rooms. Absent from older media servers. */
  consumers?: number;
  /**
   * Its workers' measured CPU, in shares of one core added up (2 workers at half a core: 1).
   * Absent from older media servers.
   */
  cpu?: number;
  /**
   * It takes no new part of a room: its members reached MEDIA_MAX_MEMBERS, its consumers the
   * budget of all its workers (MEDIA_CONSUMER_BUDGET each), its workers MEDIA_FULL_CPU of their
   * cores, or its ports are all taken. The API places a newcomer to a room it holds on another
   * media server that is not full (a room across media servers), and still here when none is.
   */
  full?: true;
}

/** A media server's periodic announcement; `draining` says it is emptying, `gone` that it closed. */
export interface MediaServerAnnouncement {
  /** Random per process start: a restarted media server is a new one. */
  id: string;
  /** Where browsers reach its signalling endpoint (ws: or wss: URL ending in MEDIA_SOCKET_PATH). */
  url: string;
  load: MediaServerLoad;
  /**
   * The rooms it hosts now, with how many joined members each has: the API recovers a room's
   * placement from it (a room stays on the server that holds it, whatever Redis lost) and
   * checks the members it stored against it. Absent from older media servers.
   */
  rooms?: AnnouncedRoom[];
  /**
   * It is draining (told to stop): no room and no member is to be placed there any more, and
   * its members are moving to the rooms' new places. It still serves until it says `gone`.
   */
  draining?: true;
  gone?: true;
}

/** One room in a media server's announcement. */
export interface AnnouncedRoom {
  id: string;
  /** Joined members (those the room's RoomMembers list). */
  peers: number;
  /**
   * How many more members the ports of the room's worker can take (each takes
   * RTC_LIMITS.portsPerMember): the API says "Room is full" past it. Absent from older servers.
   */
  seats?: number;
}
