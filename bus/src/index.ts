// The public API of @voice/bus.
export { authChangesChannel } from './authChannel.ts';
export { type Bus, type BusHandler, MemoryBus } from './Bus.ts';
export { type Channel, defineChannel } from './Channel.ts';
export {
  deliveryChannel,
  mediaAnnounceChannel,
  roomChangesChannel,
  roomCommandsChannel,
  roomKicksChannel,
  roomLinksChannel,
  roomMembersChannel,
  socketEvictionChannel,
} from './channels.ts';
export type { Logger } from './Logger.ts';
export { type BusObserver, ObservedBus } from './ObservedBus.ts';
export { RedisBus } from './RedisBus.ts';
export { RECONNECT_MAX_DELAY_MS, type RedisClient, RedisLink, RedisUnavailableError } from './RedisLink.ts';
