/** Request schemas of the load tester's routes (/api/loadtest). */
import {
  type CleanupRequest,
  LOADTEST_BEFRIEND,
  LOADTEST_LIMITS,
  LOADTEST_PREFIX_PATTERN,
  type SeedRequest,
} from '@voice/protocol';
import { z } from 'zod';

const { prefixMin, prefixMax, countMax, befriendAllMax, startMax } = LOADTEST_LIMITS;

const prefixSchema = z
  .string({ error: 'prefix is required' })
  .min(prefixMin, `At least ${prefixMin} characters`)
  .max(prefixMax, `At most ${prefixMax} characters`)
  .regex(LOADTEST_PREFIX_PATTERN, 'Only lowercase letters, digits and underscore');

export const seedSchema = z
  .strictObject({
    prefix: prefixSchema,
    count: z
      .number({ error: 'count is required, a number' })
      .int('Must be a whole number')
      .min(1, 'At least 1')
      .max(countMax, `At most ${countMax} per call`),
    start: z
      .number({ error: 'Must be a number' })
      .int('Must be a whole number')
      .min(0, 'At least 0')
      .max(startMax, `At most ${startMax}`)
      .default(0),
    befriend: z
      .enum(LOADTEST_BEFRIEND, { error: `Must be one of ${LOADTEST_BEFRIEND.join(', ')}` })
      .default('none'),
  })
  // n·(n−1) friendships: 2450 at 50, a quarter of a million at 500.
  .refine((body) => body.befriend !== 'all' || body.count <= befriendAllMax, {
    path: ['befriend'],
    error: `'all' is only allowed for count ≤ ${befriendAllMax}`,
  }) satisfies z.ZodType<Required<SeedRequest>, unknown>;

export const cleanupSchema = z.strictObject({ prefix: prefixSchema }) satisfies z.ZodType<CleanupRequest>;
