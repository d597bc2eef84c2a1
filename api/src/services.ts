/** Builds the API's long-lived parts from a config, and closes them again. */
import {
  type Bus,
  MemoryBus,
  ObservedBus,
  RECONNECT_MAX_DELAY_MS,
  RedisBus,
  type RedisClient,
  RedisLink,
} from '@voice/bus';
import { AuthService } from './auth/AuthService.ts';
import { SessionCache } from './auth/SessionCache.ts';
import { Sessions } from './auth/Sessions.ts';
import { AvatarService } from './avatars/AvatarService.ts';
import { CallHistory } from './calls/CallHistory.ts';
import { CallService } from './calls/CallService.ts';
import { type CallStore, MemoryCallStore } from './calls/CallStore.ts';
import { keepOneVoice } from './calls/OneVoice.ts';
import { RedisCallStore } from './calls/RedisCallStore.ts';
import type { Config } from './config.ts';
import { createDb, type Db, migrate } from './db/index.ts';
import { FriendRepository } from './friends/FriendRepository.ts';
import { FriendService } from './friends/FriendService.ts';
import { Readiness } from './health/Readiness.ts';
import { RateLimiter } from './http/RateLimiter.ts';
import { createLogger, type Logger } from './logger.ts';
import { Mailer } from './mail/Mailer.ts';
import { MediaServers } from './media/MediaServers.ts';
import { AppMetrics } from './metrics/AppMetrics.ts';
import { PushNotifier } from './notifications/PushNotifier.ts';
import { WebPush } from './notifications/WebPush.ts';
import { Presence } from './presence/Presence.ts';
import { MemoryPresenceStore, type PresenceStore } from './presence/PresenceStore.ts';
import { RedisPresenceStore } from './presence/RedisPresenceStore.ts';
import { prepareDataDir } from './privateFiles.ts';
import { type BanStore, MemoryBanStore } from './rooms/BanStore.ts';
import { FriendRooms } from './rooms/FriendRooms.ts';
import { type MemberStore, MemoryMemberStore } from './rooms/MemberStore.ts';
import { MemoryPlacementStore, type PlacementStore } from './rooms/PlacementStore.ts';
import { RedisBanStore } from './rooms/RedisBanStore.ts';
import { RedisMemberStore } from './rooms/RedisMemberStore.ts';
import { RedisPlacementStore } from './rooms/RedisPlacementStore.ts';
import { RoomBans } from './rooms/RoomBans.ts';
import { RoomMembership } from './rooms/RoomMembership.ts';
import { RoomPlacements } from './rooms/RoomPlacements.ts';
import { RoomRepository } from './rooms/RoomRepository.ts';
import { RoomService } from './rooms/RoomService.ts';
import { RoomWatchers } from './rooms/RoomWatchers.ts';
import { mediaSecretKey, RoomTokens } from './rooms/roomToken.ts';
import type { Notifier } from './socket/Notifier.ts';
import { LocalSocketRegistry, RedisSocketRegistry, type SocketRegistry } from './socket/SocketRegistry.ts';
import { AccountService } from './users/AccountService.ts';
import { ProfileService } from './users/ProfileService.ts';
import type { UserRepository } from './users/UserRepository.ts';
import { WatchedUserRepository } from './users/WatchedUserRepository.ts';

/** Everything the HTTP and socket layers need. */
export interface Services {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  users: UserRepository;
  sessions: Sessions;
  auth: AuthService;
  limiter: RateLimiter;
  mailer: Mailer;
  bus: Bus;
  notifier: Notifier;
  /** Push subscriptions, shown tabs, and the pushes the notifier's events cause. */
  webPush: WebPush;
  presenceStore: PresenceStore;
  presence: Presence;
  friends: FriendService;
  /** One-to-one call signalling. */
  calls: CallService;
  callHistory: CallHistory;
  avatars: AvatarService;
  profiles: ProfileService;
  accounts: AccountService;
  /** Every process's app sockets, so the per-person cap holds for the whole service. */
  socketRegistry: SocketRegistry;
  /** The media servers announced on the bus, for placing rooms. */
  mediaServers: MediaServers;
  /** Group rooms, their invitations, and who is in them (from the media servers). */
  rooms: RoomService;
  roomMembership: RoomMembership;
  /** The app socket's tabs here that watch the room list. */
  roomWatchers: RoomWatchers;
  /** This process's Prometheus registry and the counters features report to. */
  metrics: AppMetrics;
  /** Whether the database (and Redis, when set) answer in time: `/api/health/ready`. */
  readiness: Readiness;
  close(): Promise<void>;
}

export async function createServices(
  config: Readonly<Config>,
  logger = createLogger(config.logLevel),
): Promise<Services> {
  // DATA_DIR holds secrets: the service's alone, also what an older version left there.
  await prepareDataDir(config.dataDir);
  const db = createDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    acquireTimeoutMs: config.dbAcquireTimeoutMs,
  });
  await migrate(db);
  const metrics = new AppMetrics();

  // Every Redis call of the bus and presence has a deadline and a degraded answer (RedisLink).
  let link: RedisLink | null = null;
  let redis: RedisClient | null = null;
  let bus: Bus;
  let presenceStore: PresenceStore;
  let redisPresence: RedisPresenceStore | null = null;
  if (config.redisUrl) {
    link = await RedisLink.connect(config.redisUrl, logger);
    redis = link.client;
    bus = new ObservedBus(await RedisBus.create(link, `${config.redisPrefix}bus:`, logger), metrics.bus);
    presenceStore = redisPresence = await RedisPresenceStore.create(link, {
      prefix: config.redisPrefix,
      logger,
    });
  } else {
    bus = new ObservedBus(new MemoryBus(logger), metrics.bus);
    presenceStore = new MemoryPresenceStore();
  }

  // Verified sessions in memory; ended sessions and changed people are forgotten on every process.
  const sessionCache = await SessionCache.create({ bus, health: link, logger });
  const users: UserRepository = new WatchedUserRepository(db, (userId) => sessionCache.userChanged(userId));
  const webPush = new WebPush({
    config,
    db,
    users,
    logger,
    onPushOutcome: (outcome) => metrics.pushSent(outcome),
  });
  // Its events that a person must hear with no tab shown also go out as web pushes.
  const notifier: Notifier = new PushNotifier(bus, webPush.notifications);
  const sessions = new Sessions(db, config.jwtSecret, undefined, sessionCache);
  const mailer = new Mailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
    onSent: (outcome) => metrics.mailSent(outcome),
  });
  const auth = new AuthService({
    db,
    users,
    sessions,
    mailer,
    logger,
    publicUrl: config.publicUrl,
    // Open sockets of ended sessions close too, on whichever process holds them.
    onSessionsRevoked: (userId, sessionId) => notifier.revokeSessions(userId, sessionId),
  });
  // With Redis the counters are shared by every API process; a Redis that does not answer
  // in time leaves each process counting on its own instead of holding the request.
  const limiter = new RateLimiter({
    factor: config.rateLimitFactor,
    redis,
    prefix: `${config.redisPrefix}rl:`,
    logger,
  });
  const friendRepository = new FriendRepository(db);
  const presence = new Presence({
    db,
    store: presenceStore,
    friends: friendRepository,
    notifier,
    logger,
    disconnectWaitMs: config.presenceDisconnectWaitMs,
    // By then every process has reconnected and subscribed again, so none misses the news.
    resyncAnnounceDelayMs: RECONNECT_MAX_DELAY_MS + 500,
  });
  metrics.watchPeopleOnline(() => presence.localUsers);
  // Redis back after a hang or a restart: put back this process's people and tell their friends.
  link?.onRecovered(() => {
    presence.resync().catch((error: unknown) => logger.warn('presence resync failed', { error }));
  });
  const callStore: CallStore = link
    ? new RedisCallStore(link, { prefix: config.redisPrefix, ringTimeoutMs: config.callRingTimeoutMs })
    : new MemoryCallStore();
  const callHistory = new CallHistory(db);
  const calls = new CallService({
    store: callStore,
    friends: friendRepository,
    users,
    presence: presenceStore,
    notifier,
    logger,
    ringTimeoutMs: config.callRingTimeoutMs,
    // The presence heartbeat says which process is alive; one process alone needs no sweep.
    nodeId: redisPresence?.nodeId ?? 'local',
    nodesAlive: redisPresence ? (ids) => (redisPresence as RedisPresenceStore).nodesAlive(ids) : undefined,
    onEnded: (call, reason, endedAt) => {
      metrics.callEnded(reason);
      return callHistory.record(call, reason, endedAt);
    },
  });
  const avatars = await AvatarService.create({
    users,
    logger,
    dataDir: config.dataDir,
    // Friends' lists and the person's own other tabs show the new picture at once.
    onAvatarChanged: async (userId, avatarUrl) => {
      const friendIds = await friendRepository.friendIds(userId);
      await notifier.notifyMany([userId, ...friendIds], 'avatar-updated', { userId, avatar_url: avatarUrl });
    },
  });
  const profiles = new ProfileService(users, avatars, {
    logger,
    // A new display name reaches friends' lists and the person's other tabs like an avatar does.
    onDisplayNameChanged: async (userId, displayName) => {
      const friendIds = await friendRepository.friendIds(userId);
      await notifier.notifyMany([userId, ...friendIds], 'profile-updated', {
        userId,
        display_name: displayName,
      });
    },
  });

  const accounts = new AccountService({
    db,
    users,
    friends: friendRepository,
    notifier,
    avatars,
    logger,
    onRemoved: (userId) => sessions.userChanged(userId),
  });
  const socketRegistry: SocketRegistry = link
    ? new RedisSocketRegistry(link, config.redisPrefix, logger)
    : new LocalSocketRegistry();
  const mediaServers = await MediaServers.create(bus, logger);
  const memberStore: MemberStore = link
    ? new RedisMemberStore(link, config.redisPrefix)
    : new MemoryMemberStore();
  const placementStore: PlacementStore = link
    ? new RedisPlacementStore(link, config.redisPrefix)
    : new MemoryPlacementStore();
  const roomMembership = await RoomMembership.create(bus, memberStore, mediaServers, logger);
  const roomRepository = new RoomRepository(db);
  const banStore: BanStore = link ? new RedisBanStore(link, config.redisPrefix) : new MemoryBanStore();
  const roomBans = await RoomBans.create(bus, banStore, roomRepository, logger);
  const rooms = new RoomService({
    rooms: roomRepository,
    users,
    friends: friendRepository,
    membership: roomMembership,
    // A room stays on the server that announces it, whatever Redis lost (RoomMembership).
    placements: new RoomPlacements(placementStore, mediaServers, roomMembership),
    tokens: new RoomTokens(mediaSecretKey(config)),
    bans: roomBans,
    limiter,
    notifier,
    bus,
    logger,
  });
  // A person's microphone goes into a room or a call, never both (issue 19).
  keepOneVoice({ calls, rooms, membership: roomMembership, bus, logger });
  const roomWatchers = await RoomWatchers.create({
    bus,
    rooms,
    repository: roomRepository,
    membership: roomMembership,
    notifier,
    logger,
  });
  const friends = new FriendService({
    db,
    friends: friendRepository,
    users,
    presence: presenceStore,
    notifier,
    rooms: new FriendRooms({
      membership: roomMembership,
      rooms: roomRepository,
      friends: friendRepository,
      notifier,
    }),
  });

  let closed = false;
  return {
    config,
    logger,
    db,
    users,
    sessions,
    auth,
    limiter,
    mailer,
    bus,
    notifier,
    webPush,
    presenceStore,
    presence,
    friends,
    calls,
    callHistory,
    avatars,
    profiles,
    accounts,
    socketRegistry,
    mediaServers,
    rooms,
    roomMembership,
    roomWatchers,
    metrics,
    readiness: new Readiness({ db, redis: link, logger }),
    async close() {
      if (closed) return;
      closed = true;
      await roomWatchers.close();
      await roomBans.close();
      await roomMembership.close();
      await mediaServers.close();
      await calls.close();
      await webPush.close();
      await presence.close();
      await presenceStore.close();
      await sessionCache.close();
      await bus.close();
      await auth.drain();
      await mailer.close();
      await limiter.close();
      await link?.close();
      await db.destroy();
    },
  };
}
