/** Request schema of DELETE /users/me (account removal). */
import { LIMITS, type RemoveAccountRequest } from '@voice/protocol';
import { z } from 'zod';

/** The person's current password, to confirm. Any string up to the password limit: it is only compared. */
export const removeAccountSchema = z.object({
  password: z
    .string({ error: 'Password is required' })
    .min(1, 'Password is required')
    .max(LIMITS.passwordMax, `Password must be at most ${LIMITS.passwordMax} characters`),
}) satisfies z.ZodType<RemoveAccountRequest>;
