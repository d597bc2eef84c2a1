/** Schemas of the notification routes and socket request: bounded before anything sees them. */
import type { RequestData, SubscribeBody, UnsubscribeBody } from '@voice/protocol';
import { z } from 'zod';
import { PUSH_ENDPOINT_MAX_CHARS } from './PushEndpoints.ts';

const endpointSchema = z
  .string({ error: 'Must be a push endpoint URL' })
  .min(1, 'Must be a push endpoint URL')
  .max(PUSH_ENDPOINT_MAX_CHARS, `Must be at most ${PUSH_ENDPOINT_MAX_CHARS} characters`);

/** A base64url key of exactly `bytes` bytes (padding allowed), e.g. a P-256 point or an auth secret. */
const keySchema = (bytes: number, what: string) =>
  z
    .string({ error: `Must be ${what}` })
    .max(128)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `Must be ${what}`)
    .refine((value) => Buffer.from(value, 'base64url').length === bytes, `Must be ${what}`);

export const subscribeSchema = z.strictObject({
  // As PushSubscription.toJSON() gives it; fields a browser may add later are dropped.
  subscription: z.object({
    endpoint: endpointSchema,
    expirationTime: z.number().nullable().optional(),
    keys: z.object({
      p256dh: keySchema(65, 'an uncompressed P-256 public key (base64url)').refine(
        (value) => Buffer.from(value, 'base64url')[0] === 4,
        'Must be an uncompressed P-256 public key (base64url)',
      ),
      auth: keySchema(16, 'a 16-byte auth secret (base64url)'),
    }),
  }),
  isSafari: z.boolean({ error: 'Must be true or false' }),
}) satisfies z.ZodType<SubscribeBody>;

export const unsubscribeSchema = z.strictObject({
  endpoint: endpointSchema,
}) satisfies z.ZodType<UnsubscribeBody>;

export const setVisibilitySchema = z.strictObject({
  visible: z.boolean({ error: 'Must be true or false' }),
}) satisfies z.ZodType<RequestData<'set-visibility'>>;
