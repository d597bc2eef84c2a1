/** One-to-one calls: the signalling on the app socket, and the history (/api/calls). */
import type { FriendRepository } from '../friends/FriendRepository.ts';
import type { UserRepository } from '../users/UserRepository.ts';
import type { Infrastructure } from '../wiring.ts';
import { CallHistoryRepository } from './CallHistoryRepository.ts';
import { CallService } from './CallService.ts';
import { callRoutes } from './routes.ts';
import { callSocketHandlers, callSocketLifecycle } from './socketHandlers.ts';

export function wireCalls(
  { config, db, stores, notifier, requireAuth, metrics, logger }: Infrastructure,
  { users, friendships }: { users: UserRepository; friendships: FriendRepository },
) {
  const history = new CallHistoryRepository(db);
  const calls = new CallService({
    store: stores.calls,
    friends: friendships,
    users,
    presence: stores.presence,
    notifier,
    logger,
    ringTimeoutMs: config.callRingTimeoutMs,
    // One process alone needs no sweep.
    nodeId: stores.nodeId,
    nodesAlive: stores.nodesAlive,
    onEnded: (call, reason, endedAt) => {
      metrics.callEnded(reason);
      return history.record(call, reason, endedAt);
    },
  });
  return {
    calls,
    routes: [callRoutes(history, requireAuth).routes()],
    socketHandlers: callSocketHandlers(calls),
    socketLifecycle: [callSocketLifecycle(calls)],
    close: () => calls.close(),
  };
}
