/** Schemas of the call requests: everything a tab sends is bounded before the service sees it. */
import {
  CALL_HANGUP_REASONS,
  CALL_ICE_CANDIDATE_MAX_CHARS,
  CALL_SDP_MAX_CHARS,
  type RequestData,
} from '@voice/protocol';
import { z } from 'zod';
import { userIdSchema } from '../http/schemas.ts';

const callIdSchema = z
  .string({ error: 'Must be a call id' })
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { error: 'Must be a call id' })
  .toLowerCase();

const sdpSchema = z.string({ error: 'Must be an SDP' }).min(1).max(CALL_SDP_MAX_CHARS);
const shortString = z.string().max(CALL_ICE_CANDIDATE_MAX_CHARS);

export const initiateCallSchema = z.strictObject({ targetUserId: userIdSchema }) satisfies z.ZodType<
  RequestData<'initiate-call'>
>;

export const callIdBodySchema = z.strictObject({ callId: callIdSchema }) satisfies z.ZodType<
  RequestData<'reject-call'>
>;

/** The callee's answer to the offer that came while ringing may come with the accept. */
export const acceptCallSchema = z.strictObject({
  callId: callIdSchema,
  sdp: sdpSchema.optional(),
}) satisfies z.ZodType<RequestData<'accept-call'>>;

export const endCallSchema = z.strictObject({
  callId: callIdSchema,
  reason: z.enum(CALL_HANGUP_REASONS).optional(),
}) satisfies z.ZodType<RequestData<'end-call'>>;

export const callMutedSchema = z.strictObject({
  callId: callIdSchema,
  muted: z.boolean({ error: 'muted must be true or false' }),
}) satisfies z.ZodType<RequestData<'call-muted'>>;

export const sdpBodySchema = z.strictObject({ callId: callIdSchema, sdp: sdpSchema }) satisfies z.ZodType<
  RequestData<'webrtc-offer'>
>;

export const iceCandidateBodySchema = z.strictObject({
  callId: callIdSchema,
  // RTCIceCandidateInit and nothing else; an empty candidate is the end-of-candidates marker.
  candidate: z.strictObject({
    candidate: shortString,
    sdpMid: shortString.nullable().optional(),
    sdpMLineIndex: z.number().int().min(0).max(65535).nullable().optional(),
    usernameFragment: shortString.nullable().optional(),
  }),
}) satisfies z.ZodType<RequestData<'webrtc-ice-candidate'>>;
