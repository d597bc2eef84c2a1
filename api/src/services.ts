/** Builds the API's long-lived parts from a config, and closes them again. */
import { createClient } from 'redis';
import { AuthService } from './auth/AuthService.ts';
import { Sessions } from './auth/Sessions.ts';
import type { Config } from './config.ts';
import { createDb, type Db, migrate } from './db/index.ts';
import {
  type CounterStore,
  MemoryCounterStore,
  RateLimiter,
  RedisCounterStore,
  type RedisLike,
} from './http/RateLimiter.ts';
import { createLogger, type Logger } from './logger.ts';
import { Mailer } from './mail/Mailer.ts';
import { UserRepository } from './users/UserRepository.ts';

/** Everything the HTTP layer needs. */
export interface Services {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  users: UserRepository;
  sessions: Sessions;
  auth: AuthService;
  limiter: RateLimiter;
  mailer: Mailer;
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
  if (config.redisUrl) {
    redis = createClient({ url: config.redisUrl });
    redis.on('error', (error: unknown) => logger.error('redis error', { error }));
    await redis.connect();
    counters = new RedisCounterStore(redis as unknown as RedisLike, `${config.redisPrefix}rl:`);
  } else {
    counters = new MemoryCounterStore();
  }

  const users = new UserRepository(db);
  const sessions = new Sessions(db, config.jwtSecret);
  const mailer = new Mailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
  });
  const auth = new AuthService({ db, users, sessions, mailer, logger, publicUrl: config.publicUrl });
  const limiter = new RateLimiter(counters, config.rateLimitFactor);

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
    async close() {
      if (closed) return;
      closed = true;
      await mailer.close();
      await counters.close();
      if (redis) await redis.quit();
      await db.destroy();
    },
  };
}
