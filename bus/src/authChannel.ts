/**
 * The channel of the API's session cache (api/src/auth/SessionCache.ts). Kept apart from
 * channels.ts only so that it can be read with the cache; it is checked on arrival alike.
 */
import { AUTH_CHANGES_CHANNEL, type AuthChange } from '@voice/protocol';
import { z } from 'zod';
import { defineChannel } from './Channel.ts';

const id = z.string().min(1).max(200);

/** A session ended, a person changed, or (after a bus outage) every cached session is suspect. */
export const authChangesChannel = defineChannel<AuthChange>(
  AUTH_CHANGES_CHANNEL,
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('session-ended'), sessionId: id }),
    z.object({ type: z.literal('user-changed'), userId: id }),
    z.object({ type: z.literal('flush') }),
  ]),
);
