/** Schema pieces every feature's routes share, so one rule has one definition. */
import { z } from 'zod';

/** A UUID in either letter case (PostgreSQL's uuid type reads both). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A user id: any UUID, in either letter case, lowercased here at the edge. Ids are stored
 * and compared lowercase, so `ABC…` and `abc…` must reach the domain code as one id
 * (or a person could befriend themselves, and a pair lock would see two pairs).
 */
export const userIdSchema = z
  .string({ error: 'Must be a user id' })
  .regex(UUID, { error: 'Must be a user id' })
  .toLowerCase();

/** The `:id` of a route such as GET /users/:id or DELETE /users/friend/:id. */
export const idParamsSchema = z.object({ id: userIdSchema });

/** True for a string that is a UUID in either letter case (a plain test: it runs on every request). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
