/** Request schemas of the friend routes and socket requests. */
import { LIMITS } from '@voice/protocol';
import { z } from 'zod';

export const userIdSchema = z.uuid({ error: 'userId must be a user id' });

export const searchSchema = z.object({
  searchTerm: z
    .string({ error: 'searchTerm is required' })
    .trim()
    .min(LIMITS.searchMin, `Search needs at least ${LIMITS.searchMin} characters`)
    .max(100, 'Search is too long'),
});

export const userIdBodySchema = z.object({ userId: userIdSchema });
