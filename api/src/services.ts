/**
 * Builds the API's long-lived parts from a config, and closes them again: the shared Base,
 * then each feature from its own `wire.ts`, in the order their dependencies ask.
 */
import type { Bus } from '@voice/bus';
import type { SpentRoomTokens } from '@voice/media-server';
import type { Middleware } from 'koa';
import type { AuthService } from './auth/AuthService.ts';
import type { Sessions } from './auth/Sessions.ts';
import { wireAuth, wireSessions } from './auth/wire.ts';
import type { AvatarService } from './avatars/AvatarService.ts';
import { wireAvatars } from './avatars/wire.ts';
import type { CallService } from './calls/CallService.ts';
import { keepOneVoice } from './calls/OneVoice.ts';
import { wireCalls } from './calls/wire.ts';
import type { Config } from './config.ts';
import type { Db } from './db/index.ts';
import { FriendRepository } from './friends/FriendRepository.ts';
import { wireFriends } from './friends/wire.ts';
import { wireHealth } from './health/wire.ts';
import type { RateLimiter } from './http/RateLimiter.ts';
import { wireLegal } from './legal/wire.ts';
import { wireLoadtest } from './loadtest/wire.ts';
import { createLogger, type Logger } from './logger.ts';
import type { MediaServers } from './mediaServers/MediaServers.ts';
import type { AppMetrics } from './metrics/AppMetrics.ts';
import { wireNotifications } from './notifications/wire.ts';
import type { Presence } from './presence/Presence.ts';
import type { PresenceStore } from './presence/PresenceStore.ts';
import { wirePresence } from './presence/wire.ts';
import type { RoomMembership } from './rooms/RoomMembership.ts';
import type { RoomService } from './rooms/RoomService.ts';
import { wireRooms } from './rooms/wire.ts';
import type { SocketHandlers, SocketLifecycle } from './socket/handlers.ts';
import type { Notifier } from './socket/Notifier.ts';
import type { SocketRegistry } from './socket/SocketRegistry.ts';
import type { SocketTickets } from './socket/SocketTickets.ts';
import { wireSocketTickets } from './socket/wire.ts';
import type { UserRepository } from './users/UserRepository.ts';
import { wireUsers } from './users/wire.ts';
import { wireWebrtc } from './webrtc/wire.ts';
import { type Infrastructure, openBase, type Routes, type Wired } from './wiring.ts';

/** Everything the HTTP and socket layers need, and the parts tests reach into. */
export interface Services {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  bus: Bus;
  notifier: Notifier;
  limiter: RateLimiter;
  /** This process's Prometheus registry and the counters features report to. */
  metrics: AppMetrics;
  users: UserRepository;
  sessions: Sessions;
  auth: AuthService;
  presence: Presence;
  presenceStore: PresenceStore;
  /** One-to-one call signalling. */
  calls: CallService;
  avatars: AvatarService;
  /** Every process's app sockets, so the per-person cap holds for the whole service. */
  socketRegistry: SocketRegistry;
  /** Tickets for the app socket's handshakes (the session token stays out of its URL). */
  socketTickets: SocketTickets;
  /** Where the embedded media server records the room tokens it spent (Redis), if anywhere. */
  spentRoomTokens?: SpentRoomTokens;
  /** The media servers announced on the bus, for placing rooms. */
  mediaServers: MediaServers;
  /** Group rooms, their invitations, and who is in them (from the media servers). */
  rooms: RoomService;
  roomMembership: RoomMembership;
  /** The features' routers, mounted under /api in this order. */
  routes: Routes[];
  /** Served after /api (uploaded files). */
  files: Middleware[];
  /** Every request of the app socket, each from the feature it belongs to. */
  socketHandlers: SocketHandlers;
  socketLifecycle: SocketLifecycle[];
  close(): Promise<void>;
}

export async function createServices(
  config: Readonly<Config>,
  logger = createLogger(config.logLevel),
): Promise<Services> {
  const base = await openBase(config, logger);
  const sessions = await wireSessions(base);
  const { users } = sessions;
  const notifications = wireNotifications(base, sessions);
  const infra: Infrastructure = {
    ...base,
    notifier: notifications.notifier,
    requireAuth: sessions.requireAuth,
  };
  // Who is friends with whom: read by most features, changed by friends/ alone.
  const friendships = new FriendRepository(base.db);
  const auth = wireAuth(infra, sessions);
  const presence = wirePresence(infra, { friendships });
  const calls = wireCalls(infra, { users, friendships });
  const rooms = await wireRooms(infra, { users, friendships });
  // A person's microphone goes into a room or a call, never both (issue 19).
  keepOneVoice({
    calls: calls.calls,
    rooms: rooms.rooms,
    membership: rooms.membership,
    bus: base.stores.bus,
    logger,
  });
  const friends = wireFriends(infra, { users, friendships, rooms: rooms.friendRooms });
  const avatars = await wireAvatars(infra, { users, friendIds: (userId) => friendships.friendIds(userId) });
  const profiles = wireUsers(infra, {
    users,
    friendships,
    avatars: avatars.avatars,
    friends: friends.friends,
    onRemoved: (userId) => sessions.sessions.userChanged(userId),
  });
  const health = wireHealth(base, { mediaServers: rooms.mediaServers });
  const legal = wireLegal(base);
  const webrtc = wireWebrtc(infra);
  const loadtest = wireLoadtest(infra, {
    sessions: sessions.sessions,
    friendships,
    rooms: rooms.rooms,
    avatars: avatars.avatars,
  });
  const socket = wireSocketTickets(infra, { sessions: sessions.sessions });

  // Closed in the reverse order of their wiring: what uses a part closes before it.
  const wired: Wired[] = [sessions, notifications, auth, presence, calls, rooms, friends, avatars, profiles];
  // Before any /users/:id route (profiles), so /users/friends is never taken for an id.
  const mounted: Wired[] = [
    health,
    auth,
    legal,
    friends,
    profiles,
    calls,
    rooms,
    webrtc,
    notifications,
    loadtest,
    socket,
  ];
  let closed = false;
  return {
    config,
    logger,
    db: base.db,
    bus: base.stores.bus,
    notifier: infra.notifier,
    limiter: base.limiter,
    metrics: base.metrics,
    users,
    sessions: sessions.sessions,
    auth: auth.auth,
    presence: presence.presence,
    presenceStore: base.stores.presence,
    calls: calls.calls,
    avatars: avatars.avatars,
    socketRegistry: base.stores.sockets,
    socketTickets: socket.tickets,
    spentRoomTokens: base.stores.spentRoomTokens,
    mediaServers: rooms.mediaServers,
    rooms: rooms.rooms,
    roomMembership: rooms.membership,
    routes: mounted.flatMap((feature) => feature.routes ?? []),
    files: avatars.files,
    socketHandlers: {
      ...friends.socketHandlers,
      ...calls.socketHandlers,
      ...notifications.socketHandlers,
      ...rooms.socketHandlers,
    },
    socketLifecycle: [...calls.socketLifecycle, ...rooms.socketLifecycle, ...notifications.socketLifecycle],
    async close() {
      if (closed) return;
      closed = true;
      for (const feature of [...wired].reverse()) await feature.close?.();
      await base.close();
    },
  };
}
