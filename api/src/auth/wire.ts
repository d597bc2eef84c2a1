/**
 * Who is signed in (the sessions, and the people the session cache watches: read by every
 * feature), and signing in, out and resetting a password (/api/auth).
 */
import { type Person, requireAuth } from '../http/requireAuth.ts';
import { Mailer } from '../mail/Mailer.ts';
import type { UserRepository } from '../users/UserRepository.ts';
import { WatchedUserRepository } from '../users/WatchedUserRepository.ts';
import type { Base, Infrastructure } from '../wiring.ts';
import { AuthService } from './AuthService.ts';
import { authRoutes } from './routes.ts';
import { SessionCache } from './SessionCache.ts';
import { Sessions } from './Sessions.ts';

/** The sessions and the people they belong to. */
export async function wireSessions({ config, db, link, stores, logger }: Base) {
  // Verified sessions in memory; ended sessions and changed people are forgotten on every process.
  const cache = await SessionCache.create({ bus: stores.bus, health: link, logger });
  const users: UserRepository = new WatchedUserRepository(db, (userId) => cache.userChanged(userId));
  const sessions = new Sessions(db, config.jwtSecret, undefined, cache);
  return {
    users,
    sessions,
    requireAuth: requireAuth<Person>(sessions),
    close: () => cache.close(),
  };
}

/** Registration, sign-in and password resets, with the mail they send. */
export function wireAuth(
  { config, db, notifier, limiter, metrics, logger }: Infrastructure,
  { users, sessions }: { users: UserRepository; sessions: Sessions },
) {
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
  return {
    auth,
    routes: [authRoutes(auth, limiter).routes()],
    async close() {
      await auth.drain();
      await mailer.close();
    },
  };
}
