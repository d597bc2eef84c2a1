/**
 * The protoo methods of a room (protocol's RtcRequests), one small handler each. Every request
 * passes, in order: the member's rate cap (429), a known method (404), the join (403: only
 * getRouterRtpCapabilities, join, the transport methods and leave come before it, in
 * mediasoup-demo's order), its data schema (400), for a stats request the smaller stats cap
 * (429); then the handler, which finds ids among the member's own objects only (404 for anyone
 * else's).
 */
import type { RtcRequests } from '@voice/protocol';
import type protoo from 'protoo-server';
import { z } from 'zod';
import { RTC_ERROR, RtcRequestError } from './errors.ts';
import type { Peer } from './Peer.ts';
import type { Room } from './Room.ts';
import type { DtlsParameters, Logger, RtpCapabilities, RtpParameters, WebRtcTransport } from './types.ts';

const id = z.string().min(1).max(200);
const parameters = z.record(z.string().max(100), z.union([z.string().max(1000), z.number()]));
const rtcpFeedback = z
  .array(z.object({ type: z.string().max(100), parameter: z.string().max(100).optional() }))
  .max(20);

// Shapes checked here; mediasoup checks the meaning (and its TypeError becomes a 400 too).
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

const none = z.object({});
const transportId = z.object({ transportId: id });
const producerId = z.object({ producerId: id });
const consumerId = z.object({ consumerId: id });
const peerId = z.object({ peerId: id });

type Reply<M extends keyof RtcRequests> = RtcRequests[M]['reply'];

/** Runs after the reply went out: what others must hear only once the requester knows. */
type After = (then: () => void) => void;

interface Handler<M extends keyof RtcRequests, S extends z.ZodType> {
  schema: S;
  /** Allowed before `join`. */
  beforeJoin?: true;
  /** Asks the worker for a stats report: also spends from the member's stats allowance. */
  stats?: true;
  handle(room: Room, peer: Peer, data: z.output<S>, after: After): Promise<Reply<M>> | Reply<M>;
}

function handler<M extends keyof RtcRequests, S extends z.ZodType>(definition: Handler<M, S>): Handler<M, S> {
  return definition;
}

const handlers: { [M in keyof RtcRequests]: Handler<M, z.ZodType> } = {
  getRouterRtpCapabilities: handler({
    schema: none,
    beforeJoin: true,
    handle: (room) => room.router.rtpCapabilities,
  }),
  join: handler({
    // The name shown is the room token's; the client's own is checked for shape and not used.
    schema: z.object({
      displayName: z.string().max(200).optional(),
      device: z.unknown().optional(),
      // None: a member that only sends (mediasoup-demo's consume=false, a streaming bot).
      rtpCapabilities: rtpCapabilities.optional(),
    }),
    beforeJoin: true,
    handle: (room, peer, data, after) => {
      const peers = room.join(peer, data.rtpCapabilities as RtpCapabilities | undefined);
      after(() => room.welcome(peer));
      return { peers };
    },
  }),
  createWebRtcTransport: handler({
    schema: z.object({ producing: z.boolean(), consuming: z.boolean(), forceTcp: z.boolean().optional() }),
    beforeJoin: true,
    handle: async (room, peer, { producing, consuming, forceTcp }) => {
      const transport = await room.createWebRtcTransport(peer, {
        producing,
        consuming,
        forceTcp: forceTcp ?? false,
      });
      const { iceParameters, iceCandidates, dtlsParameters } = transport;
      return { id: transport.id, iceParameters, iceCandidates, dtlsParameters };
    },
  }),
  connectWebRtcTransport: handler({
    schema: z.object({ transportId: id, dtlsParameters }),
    beforeJoin: true,
    handle: async (_room, peer, data) => {
      await peer.connectTransport(webRtc(peer, data.transportId), data.dtlsParameters as DtlsParameters);
      return {};
    },
  }),
  restartIce: handler({
    schema: transportId,
    beforeJoin: true,
    handle: (_room, peer, data) => webRtc(peer, data.transportId).restartIce(),
  }),
  produce: handler({
    // Client appData is not kept: consumers are told whose voice it is, nothing the client chose.
    schema: z.object({
      transportId: id,
      kind: z.literal('audio'),
      rtpParameters,
      appData: z.unknown().optional(),
    }),
    handle: async (room, peer, data, after) => {
      const producer = await room.produce(peer, data.transportId, data.rtpParameters as RtpParameters);
      after(() => room.announceProducer(peer, producer));
      return { id: producer.id };
    },
  }),
  closeProducer: handler({
    schema: producerId,
    handle: (room, peer, data) => {
      peer.ownProducer(data.producerId).close();
      room.announceMuted(peer);
      return {};
    },
  }),
  pauseProducer: handler({
    schema: producerId,
    handle: async (room, peer, data) => {
      await peer.ownProducer(data.producerId).pause();
      room.announceMuted(peer);
      return {};
    },
  }),
  resumeProducer: handler({
    schema: producerId,
    handle: async (room, peer, data) => {
      await peer.ownProducer(data.producerId).resume();
      room.announceMuted(peer);
      return {};
    },
  }),
  pauseConsumer: handler({
    schema: consumerId,
    handle: async (_room, peer, data) => {
      await peer.consumer(data.consumerId).pause();
      return {};
    },
  }),
  resumeConsumer: handler({
    schema: consumerId,
    handle: async (_room, peer, data) => {
      await peer.consumer(data.consumerId).resume();
      return {};
    },
  }),
  mutePeer: handler({
    schema: peerId,
    handle: async (room, peer, data) => {
      const target = room.target(peer, data.peerId);
      // They may unmute themselves: a mute is a pause of their producer, not a ban.
      if (target.producer && !target.producer.paused) {
        await target.producer.pause();
        room.announceMuted(target);
      }
      return {};
    },
  }),
  kickPeer: handler({
    schema: peerId,
    handle: async (room, peer, data) => {
      await room.kick(room.target(peer, data.peerId).id);
      return {};
    },
  }),
  leave: handler({
    schema: none,
    beforeJoin: true,
    handle: (_room, peer, _data, after) => {
      after(() => peer.close());
      return {};
    },
  }),
  getTransportStats: handler({
    schema: transportId,
    stats: true,
    handle: (_room, peer, data) => peer.transportStats(data.transportId),
  }),
  getProducerStats: handler({
    schema: producerId,
    stats: true,
    handle: (_room, peer, data) => peer.producerStats(data.producerId),
  }),
  getConsumerStats: handler({
    schema: consumerId,
    stats: true,
    handle: (_room, peer, data) => peer.consumerStats(data.consumerId),
  }),
};

/** The member's transport `transportId`, which must be a WebRTC one (not a server-side PlainTransport). */
function webRtc(peer: Peer, transportId: string): WebRtcTransport {
  const transport = peer.transport(transportId);
  if (!('restartIce' in transport)) {
    throw new RtcRequestError(RTC_ERROR.badRequest, `transport "${transportId}" is not a WebRTC transport`);
  }
  return transport as WebRtcTransport;
}

function isMethod(method: string): method is keyof RtcRequests {
  return Object.hasOwn(handlers, method);
}

/** Checks and runs one request of `peer`, answering it whatever happens. */
export async function dispatchRequest(
  room: Room,
  peer: Peer,
  request: protoo.ProtooRequest,
  accept: protoo.AcceptFn,
  reject: protoo.RejectFn,
  logger: Logger,
): Promise<void> {
  const thens: Array<() => void> = [];
  try {
    if (!peer.spendRequestBudget()) throw new RtcRequestError(RTC_ERROR.tooManyRequests, 'too many requests');
    const { method } = request;
    if (!isMethod(method)) throw new RtcRequestError(RTC_ERROR.notFound, `unknown method ${method}`);
    if (room.closed) throw new RtcRequestError(RTC_ERROR.notFound, 'the room is closed');
    const definition = handlers[method];
    if (!definition.beforeJoin && !peer.joined) {
      throw new RtcRequestError(RTC_ERROR.forbidden, `join the room before ${method}`);
    }
    const parsed = definition.schema.safeParse(request.data ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'data';
      throw new RtcRequestError(RTC_ERROR.badRequest, `${method}: ${where}: ${issue?.message ?? 'invalid'}`);
    }
    // Only what may reach the worker spends the stats allowance; the general one covers the rest.
    if (definition.stats && !peer.takeStatsRequest()) {
      throw new RtcRequestError(RTC_ERROR.tooManyRequests, 'too many stats requests');
    }
    accept(await definition.handle(room, peer, parsed.data, (then) => thens.push(then)));
  } catch (error) {
    const { status, message } = refusal(error);
    if (status === RTC_ERROR.serverError) {
      logger.error(`room ${room.id}: ${request.method} of ${peer.id} failed: ${(error as Error).message}`);
    }
    reject(status, message);
    return;
  }
  for (const then of thens) then();
}

/** The status and reason a failed request is answered with; mediasoup's own input checks are 400s. */
function refusal(error: unknown): { status: number; message: string } {
  if (error instanceof RtcRequestError) return { status: error.status, message: error.message };
  if (error instanceof Error && (error.name === 'TypeError' || error.name === 'UnsupportedError')) {
    return { status: RTC_ERROR.badRequest, message: error.message };
  }
  return { status: RTC_ERROR.serverError, message: 'internal error' };
}
