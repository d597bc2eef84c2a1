/**
 * The data schemas of a room's protoo methods (protocol's RtcRequests), checked at the edge by
 * roomRequests.ts before any handler or mediasoup sees the data. Shapes and sizes only:
 * mediasoup checks the meaning (and its TypeError becomes a 400 too).
 */
import { z } from 'zod';

const id = z.string().min(1).max(200);
const parameters = z.record(z.string().max(100), z.union([z.string().max(1000), z.number()]));
const rtcpFeedback = z
  .array(z.object({ type: z.string().max(100), parameter: z.string().max(100).optional() }))
  .max(20);

const rtpCapabilities = z.object({
  codecs: z
    .array(
      z.object({
        kind: z.enum(['audio', 'video']),
        mimeType: z.string().max(100),
        preferredPayloadType: z.number().int().min(0).max(127).optional(),
        clockRate: z.number().int().positive(),
        channels: z.number().int().positive().optional(),
        parameters: parameters.optional(),
        rtcpFeedback: rtcpFeedback.optional(),
      }),
    )
    .max(100)
    .optional(),
  headerExtensions: z
    .array(
      z.object({
        kind: z.enum(['audio', 'video']),
        uri: z.string().max(300),
        preferredId: z.number().int().min(1).max(255),
        preferredEncrypt: z.boolean().optional(),
        direction: z.enum(['sendrecv', 'sendonly', 'recvonly', 'inactive']).optional(),
      }),
    )
    .max(50)
    .optional(),
});

const rtpParameters = z.object({
  mid: z.string().max(100).optional(),
  codecs: z
    .array(
      z.object({
        mimeType: z.string().max(100),
        payloadType: z.number().int().min(0).max(127),
        clockRate: z.number().int().positive(),
        channels: z.number().int().positive().optional(),
        parameters: parameters.optional(),
        rtcpFeedback: rtcpFeedback.optional(),
      }),
    )
    .min(1)
    .max(10),
  headerExtensions: z
    .array(
      z.object({
        uri: z.string().max(300),
        id: z.number().int().min(1).max(255),
        encrypt: z.boolean().optional(),
        parameters: parameters.optional(),
      }),
    )
    .max(20)
    .optional(),
  encodings: z
    .array(
      z.object({
        ssrc: z.number().int().nonnegative().optional(),
        rid: z.string().max(100).optional(),
        codecPayloadType: z.number().int().min(0).max(127).optional(),
        rtx: z.object({ ssrc: z.number().int().nonnegative() }).optional(),
        dtx: z.boolean().optional(),
        maxBitrate: z.number().positive().optional(),
      }),
    )
    .max(4)
    .optional(),
  rtcp: z
    .object({
      cname: z.string().max(256).optional(),
      reducedSize: z.boolean().optional(),
      mux: z.boolean().optional(),
    })
    .optional(),
});

const dtlsParameters = z.object({
  role: z.enum(['auto', 'client', 'server']).optional(),
  fingerprints: z
    .array(
      z.object({
        algorithm: z.enum(['sha-1', 'sha-224', 'sha-256', 'sha-384', 'sha-512']),
        value: z.string().max(200),
      }),
    )
    .min(1)
    .max(5),
});

/** A request without data. */
export const noData = z.object({});
export const transportIdData = z.object({ transportId: id });
export const producerIdData = z.object({ producerId: id });
export const consumerIdData = z.object({ consumerId: id });
export const peerIdData = z.object({ peerId: id });
export const deafenedData = z.strictObject({ deafened: z.boolean() });
export const raisedData = z.strictObject({ raised: z.boolean() });
export const peersPageData = z.strictObject({ from: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

/** `join`. The name shown is the room token's; the client's own is checked for shape and not used. */
export const joinData = z.object({
  displayName: z.string().max(200).optional(),
  device: z.unknown().optional(),
  // None: a member that only sends (mediasoup-demo's consume=false, a streaming bot).
  rtpCapabilities: rtpCapabilities.optional(),
});

/** `createWebRtcTransport`. */
export const createWebRtcTransportData = z.object({
  producing: z.boolean(),
  consuming: z.boolean(),
  forceTcp: z.boolean().optional(),
});

/** `connectWebRtcTransport`. */
export const connectWebRtcTransportData = z.object({ transportId: id, dtlsParameters });

/** `produce`. Client appData is not kept: consumers are told whose voice it is, nothing the client chose. */
export const produceData = z.object({
  transportId: id,
  kind: z.literal('audio'),
  rtpParameters,
  appData: z.unknown().optional(),
});
