/** Who is online: told by the app socket, announced to friends, put back after a Redis outage. */
import { RECONNECT_MAX_DELAY_MS } from '@voice/bus';
import type { FriendRepository } from '../friends/FriendRepository.ts';
import type { Infrastructure } from '../wiring.ts';
import { Presence } from './Presence.ts';

export function wirePresence(
  { config, db, link, stores, notifier, metrics, logger }: Infrastructure,
  { friendships }: { friendships: FriendRepository },
) {
  const presence = new Presence({
    db,
    store: stores.presence,
    friends: friendships,
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
  return { presence, close: () => presence.close() };
}
