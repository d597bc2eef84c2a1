/** Request schemas of the friend routes and socket requests. */
import { type FriendRequestBody, LIMITS, type SearchRequest } from '@voice/protocol';
import { z } from 'zod';
import { userIdSchema } from '../http/schemas.ts';

export const searchSchema = z.object({
  searchTerm: z
    .string({ error: 'searchTerm is required' })
    .trim()
    .min(LIMITS.searchMin, `Search needs at least ${LIMITS.searchMin} characters`)
    .max(100, 'Search is too long'),
}) satisfies z.ZodType<SearchRequest>;

export const userIdBodySchema = z.object({ userId: userIdSchema }) satisfies z.ZodType<FriendRequestBody>;
