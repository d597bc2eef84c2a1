/** Request schemas of the room routes and the rooms' socket requests. */
import {
  type CreateRoomBody,
  FORWARDING,
  type InviteBody,
  type JoinRoomBody,
  type RequestData,
  ROOM_LIMITS,
  ROOM_TYPES,
  roomNameTooLong,
  type UpdateRoomBody,
} from '@voice/protocol';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { userIdSchema } from '../http/schemas.ts';
import { validate } from '../http/validate.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A room or invitation id: a UUID in either letter case, lowercased here. */
const idSchema = z.string({ error: 'Must be an id' }).regex(UUID, { error: 'Must be an id' }).toLowerCase();

const NAME_TOO_LONG = 'Room name is too long (max 100 characters)';

// Counted as a person sees it (emoji and accented letters count once); an input far past
// anything storable is refused before it is segmented.
const nameSchema = z
  .string({ error: 'Room name is required' })
  .max(ROOM_LIMITS.nameMaxCodePoints * 2 + 64, NAME_TOO_LONG)
  .trim()
  .min(1, 'Room name is required')
  .check((ctx) => {
    if (!roomNameTooLong(ctx.value)) return;
    ctx.issues.push({
      code: 'too_big',
      origin: 'string',
      maximum: ROOM_LIMITS.nameMax,
      inclusive: true,
      input: ctx.value,
      message: NAME_TOO_LONG,
    });
  });

const descriptionSchema = z
  .string({ error: 'Must be text' })
  .trim()
  .max(ROOM_LIMITS.descriptionMax, `At most ${ROOM_LIMITS.descriptionMax} characters`);

const newPasswordSchema = z
  .string({ error: 'Must be text' })
  .min(ROOM_LIMITS.passwordMin, `At least ${ROOM_LIMITS.passwordMin} characters`)
  .max(ROOM_LIMITS.passwordMax, `At most ${ROOM_LIMITS.passwordMax} characters`);

/** A password someone tries: any length up to the longest a room can have. */
const triedPasswordSchema = z
  .string({ error: 'Must be text' })
  .max(ROOM_LIMITS.passwordMax, `At most ${ROOM_LIMITS.passwordMax} characters`);

/** Largest `maxParticipants` of a room: a stage holds more, its audience only listens. */
export function participantsMax(stage: boolean): number {
  return stage ? ROOM_LIMITS.maxStageParticipants : ROOM_LIMITS.maxParticipants;
}

/** The refusal of a `maxParticipants` over participantsMax, worded as validate() words it. */
export function tooManyParticipants(stage: boolean): AppError {
  return new AppError('VALIDATION', 'maxParticipants', `maxParticipants: At most ${participantsMax(stage)}`);
}

// Its largest depends on the room being a stage: checked with the room (participantsMax).
const maxParticipantsSchema = z
  .number({ error: 'Must be a number' })
  .int('Must be a whole number')
  .min(ROOM_LIMITS.minParticipants, `At least ${ROOM_LIMITS.minParticipants}`);

/** Voices each member hears at once, the loudest (FORWARDING). */
const loudestSchema = z
  .number({ error: 'Must be a number' })
  .int('Must be a whole number')
  .min(FORWARDING.loudestMin, `At least ${FORWARDING.loudestMin}`)
  .max(FORWARDING.loudestMax, `At most ${FORWARDING.loudestMax}`);

export const createRoomSchema = z
  .strictObject({
    name: nameSchema,
    description: descriptionSchema.optional(),
    type: z.enum(ROOM_TYPES, { error: `Must be one of ${ROOM_TYPES.join(', ')}` }),
    password: newPasswordSchema.optional(),
    maxParticipants: maxParticipantsSchema.default(ROOM_LIMITS.defaultParticipants),
    loudest: loudestSchema.default(FORWARDING.loudestDefault),
    stage: z.boolean({ error: 'Must be true or false' }).default(false),
  })
  .check((ctx) => {
    const { maxParticipants, stage } = ctx.value;
    // Either of them refused already says why.
    if (typeof maxParticipants !== 'number' || typeof stage !== 'boolean') return;
    const max = participantsMax(stage);
    if (maxParticipants <= max) return;
    ctx.issues.push({
      code: 'too_big',
      origin: 'number',
      maximum: max,
      inclusive: true,
      input: maxParticipants,
      path: ['maxParticipants'],
      message: `At most ${max}`,
    });
  }) satisfies z.ZodType<CreateRoomBody, unknown>;

/** A room's stage mode is fixed: a PATCH naming it (whatever its value) is refused. */
const STAGE_FIXED = "A room's stage mode is chosen when it is created";

export const updateRoomSchema = z.strictObject({
  name: nameSchema.optional(),
  description: descriptionSchema.nullable().optional(),
  type: z.enum(ROOM_TYPES, { error: `Must be one of ${ROOM_TYPES.join(', ')}` }).optional(),
  password: newPasswordSchema.nullable().optional(),
  locked: z.boolean({ error: 'Must be true or false' }).optional(),
  maxParticipants: maxParticipantsSchema.optional(),
  loudest: loudestSchema.optional(),
  stage: z.never({ error: STAGE_FIXED }).optional(),
}) satisfies z.ZodType<UpdateRoomBody, unknown>;

export const joinRoomSchema = z.strictObject({
  password: triedPasswordSchema.optional(),
  // Compared with the room's media server URL, nothing more: never fetched as given.
  unreachable: z
    .url({ protocol: /^wss?$/, error: 'Must be a ws: or wss: URL' })
    .max(ROOM_LIMITS.mediaUrlMax, `At most ${ROOM_LIMITS.mediaUrlMax} characters`)
    .optional(),
}) satisfies z.ZodType<JoinRoomBody>;

export const joinRoomRequestSchema = z.strictObject({
  roomId: idSchema,
  password: triedPasswordSchema.optional(),
}) satisfies z.ZodType<RequestData<'join-room'>>;

/** `watch-rooms` and `unwatch-rooms` carry nothing. */
export const watchRoomsSchema = z.strictObject({}) satisfies z.ZodType<RequestData<'watch-rooms'>>;

export const inviteSchema = z.strictObject({
  userIds: z
    .array(userIdSchema, { error: 'Must be a list of user ids' })
    .max(ROOM_LIMITS.inviteMax, `At most ${ROOM_LIMITS.inviteMax} at once`),
}) satisfies z.ZodType<InviteBody>;

export const listQuerySchema = z.strictObject({
  query: z
    .string({ error: 'Must be text' })
    .trim()
    .max(ROOM_LIMITS.queryMax, `At most ${ROOM_LIMITS.queryMax} characters`)
    .optional(),
});

/** The `:id` of a room or invitation route. */
export const idParamsSchema = z.object({ id: idSchema });

/** The `:id` of a room and the `:userId` of the person named or unnamed its moderator. */
export const moderatorParamsSchema = z.object({ id: idSchema, userId: userIdSchema });

/** validate(), with the spec's own error for a room name over 100 characters. */
export function validateRoomBody<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  const nameTooLong = result.error?.issues.some(
    (issue) => issue.path[0] === 'name' && issue.code === 'too_big',
  );
  if (nameTooLong) throw new AppError('ROOM_NAME_TOO_LONG', 'name');
  return validate(schema, input);
}
