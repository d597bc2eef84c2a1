/** The bus's channels, each with the schema its messages are checked against on arrival. */
import {
  DELIVERY_CHANNEL,
  type Delivery,
  MEDIA_ANNOUNCE_CHANNEL,
  MEDIA_SOCKET_PATH,
  type MediaServerAnnouncement,
  SOCKET_EVICT_CHANNEL,
  type SocketEviction,
} from '@voice/protocol';
import { z } from 'zod';
import { defineChannel } from './Channel.ts';

const id = z.string().min(1).max(200);
// One bus message stays small even for someone with thousands of friends (see Notifier).
const MAX_RECIPIENTS = 1000;

export const deliveryChannel = defineChannel<Delivery>(
  DELIVERY_CHANNEL,
  z.object({
    to: z.array(id).max(MAX_RECIPIENTS),
    connections: z.array(id).max(MAX_RECIPIENTS).optional(),
    except: z.array(id).max(MAX_RECIPIENTS).optional(),
    event: z.string().min(1).max(100) as z.ZodType<Delivery['event']>,
    data: z.unknown(),
  }) as z.ZodType<Delivery>,
);

export const socketEvictionChannel = defineChannel<SocketEviction>(
  SOCKET_EVICT_CHANNEL,
  z.object({ userId: id, socketIds: z.array(id).max(MAX_RECIPIENTS) }),
);

const count = z.number().int().min(0).max(1_000_000);
export const mediaAnnounceChannel = defineChannel<MediaServerAnnouncement>(
  MEDIA_ANNOUNCE_CHANNEL,
  z.object({
    id,
    url: z
      .url({ protocol: /^wss?$/ })
      .max(2000)
      .refine((url) => new URL(url).pathname === MEDIA_SOCKET_PATH, `must end in ${MEDIA_SOCKET_PATH}`),
    load: z.object({ workers: count, routers: count }),
    gone: z.literal(true).optional(),
  }),
);
