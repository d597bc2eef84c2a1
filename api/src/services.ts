/** Builds the API's long-lived parts from a config, and closes them again. */
import { createClient } from 'redis';
import { AuthService } from './auth/AuthService.ts';
import { Sessions } from './auth/Sessions.ts';
import { AvatarService } from './avatars/AvatarService.ts';
import { type Bus, MemoryBus } from './bus/Bus.ts';
import { Notifier } from './bus/Notifier.ts';
import { RedisBus } from './bus/RedisBus.ts';
import type { Config } from './config.ts';
import { createDb, type Db, migrate } from './db/index.ts';
import { FriendRepository } from './friends/FriendRepository.ts';
import { FriendService } from './friends/FriendService.ts';
import {
  type CounterStore,
  MemoryCounterStore,
  RateLimiter,
  RedisCounterStore,
  type RedisLike,
} from './http/RateLimiter.ts';
import { createLogger, type Logger } from './logger.ts';
import { Mailer } from './mail/Mailer.ts';
import { Presence } from './presence/Presence.ts';
import { MemoryPresenceStore, type PresenceStore } from './presence/PresenceStore.ts';
import { RedisPresenceStore } from './presence/RedisPresenceStore.ts';
import { ProfileService } from './users/ProfileService.ts';
import { UserRepository } from './users/UserRepository.ts';

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
  presenceStore: PresenceStore;
  presence: Presence;
  friends: FriendService;
  avatars: AvatarService;
  profiles: ProfileService;
  close(): Promise<void>;
}

export async function createServices(
  config: Readonly<Config>,
  logger = createLogger(config.logLevel),
): Promise<Services> {
  const db = createDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrate(db);

  let redis: ReturnType<typeof createClient> | null = null;
  let counters: CounterStore;
  let bus: Bus;
  let presenceStore: PresenceStore;
  if (config.redisUrl) {
    redis = await connectRedis(config.redisUrl, logger);
    counters = new RedisCounterStore(redis as unknown as RedisLike, `${config.redisPrefix}rl:`);
    bus = await RedisBus.create(redis, `${config.redisPrefix}bus:`, logger);
    presenceStore = await RedisPresenceStore.create(redis, { prefix: config.redisPrefix, logger });
  } else {
    counters = new MemoryCounterStore();
    bus = new MemoryBus();
    presenceStore = new MemoryPresenceStore();
  }

  const users = new UserRepository(db);
  const notifier = new Notifier(bus);
  const sessions = new Sessions(db, config.jwtSecret);
  const mailer = new Mailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
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
  const limiter = new RateLimiter(counters, config.rateLimitFactor);
  const friendRepository = new FriendRepository(db);
  const presence = new Presence({
    db,
    store: presenceStore,
    friends: friendRepository,
    notifier,
    logger,
    disconnectWaitMs: config.presenceDisconnectWaitMs,
  });
  const friends = new FriendService({
    db,
    friends: friendRepository,
    users,
    presence: presenceStore,
    notifier,
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
  const profiles = new ProfileService(users, avatars);

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
    presenceStore,
    presence,
    friends,
    avatars,
    profiles,
    async close() {
      if (closed) return;
      closed = true;
      await presence.close();
      await presenceStore.close();
      await bus.close();
      await mailer.close();
      await counters.close();
      if (redis) await redis.quit();
      await db.destroy();
    },
  };
}

// At start-up Redis gets a few seconds (it may be starting alongside); after that a wrong
// REDIS_URL stops the process instead of retrying forever. Once connected, it reconnects for good.
const STARTUP_RETRIES = 20;

async function connectRedis(url: string, logger: Logger): Promise<ReturnType<typeof createClient>> {
  let connected = false;
  const client = createClient({
    url,
    socket: {
      reconnectStrategy: (retries: number, cause: Error) =>
        connected || retries < STARTUP_RETRIES ? Math.min(100 * 2 ** retries, 2000) : cause,
    },
  });
  client.on('error', (error: unknown) => {
    if (connected) logger.error('redis error', { error });
  });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `REDIS_URL: cannot connect to ${url.replace(/\/\/[^@]*@/, '//')}: ${(error as Error).message}`,
    );
  }
  connected = true;
  return client;
}
