/**
 * The load tester's accounts (/api/loadtest, issue 20 item 2): only with LOADTEST_SECRET set.
 * Without it nothing is mounted, and the paths answer 404 like any unknown one.
 */
import type { Sessions } from '../auth/Sessions.ts';
import type { FriendRepository } from '../friends/FriendRepository.ts';
import type { Infrastructure, Wired } from '../wiring.ts';
import { LoadtestRepository } from './LoadtestRepository.ts';
import { type LoadtestDeps, LoadtestService } from './LoadtestService.ts';
import { loadtestRoutes } from './routes.ts';

export function wireLoadtest(
  { config, db, notifier, logger }: Infrastructure,
  {
    sessions,
    friendships,
    rooms,
    avatars,
  }: {
    sessions: Sessions;
    friendships: FriendRepository;
    rooms: LoadtestDeps['rooms'];
    avatars: LoadtestDeps['avatars'];
  },
): Wired {
  const secret = config.loadtestSecret;
  if (secret === null) return {};
  const service = new LoadtestService({
    db,
    accounts: new LoadtestRepository(db),
    friendships,
    sessions,
    rooms,
    avatars,
    notifier,
    logger,
  });
  logger.warn('LOADTEST_SECRET is set: /api/loadtest can create and remove test accounts');
  return { routes: [loadtestRoutes(service, secret).routes()] };
}
