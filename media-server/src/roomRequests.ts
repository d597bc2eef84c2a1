/**
 * The protoo methods of a room (protocol's RtcRequests), one small handler each. Every request
 * passes, in order: the member's rate cap (429), a known method (404), the join (403: only
 * getRouterRtpCapabilities, join, the transport methods and leave come before it, in
 * mediasoup-demo's order), its data schema (400), for a stats request the smaller stats cap
 * (429); then the handler, which finds ids among the member's own objects only (404 for anyone
 * else's). The schemas are in rtcSchemas.ts; whoever admits the member wires its requests here.
 */
import type { RtcRequests } from '@voice/protocol';
import type protoo from 'protoo-server';
import type { z } from 'zod';
import { RTC_ERROR, RtcRequestError } from './errors.ts';
import type { Peer } from './Peer.ts';
import type { Room } from './Room.ts';
import {
  connectWebRtcTransportData,
  consumerIdData,
  createWebRtcTransportData,
  deafenedData,
  joinData,
  noData,
  peerIdData,
  peersPageData,
  produceData,
  producerIdData,
  raisedData,
  transportIdData,
} from './rtcSchemas.ts';
import type { DtlsParameters, Logger, RtpCapabilities, RtpParameters, WebRtcTransport } from './types.ts';

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
    schema: noData,
    beforeJoin: true,
    handle: (room) => room.router.rtpCapabilities,
  }),
  join: handler({
    schema: joinData,
    beforeJoin: true,
    handle: (room, peer, data, after) => {
      const page = room.join(peer, data.rtpCapabilities as RtpCapabilities | undefined);
      after(() => room.welcome(peer));
      return page;
    },
  }),
  getPeers: handler({
    schema: peersPageData,
    handle: (room, peer, data) => room.peersPage(data.from, peer),
  }),
  createWebRtcTransport: handler({
    schema: createWebRtcTransportData,
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
    schema: connectWebRtcTransportData,
    beforeJoin: true,
    handle: async (_room, peer, data) => {
      await peer.connectTransport(webRtc(peer, data.transportId), data.dtlsParameters as DtlsParameters);
      return {};
    },
  }),
  restartIce: handler({
    schema: transportIdData,
    beforeJoin: true,
    handle: (_room, peer, data) => webRtc(peer, data.transportId).restartIce(),
  }),
  produce: handler({
    schema: produceData,
    handle: async (room, peer, data, after) => {
      const producer = await room.produce(peer, data.transportId, data.rtpParameters as RtpParameters);
      after(() => room.announceProducer(peer, producer));
      return { id: producer.id };
    },
  }),
  closeProducer: handler({
    schema: producerIdData,
    handle: (room, peer, data) => {
      peer.ownProducer(data.producerId).close();
      room.announceMuted(peer);
      return {};
    },
  }),
  pauseProducer: handler({
    schema: producerIdData,
    handle: async (room, peer, data) => {
      await peer.ownProducer(data.producerId).pause();
      room.announceMuted(peer);
      return {};
    },
  }),
  resumeProducer: handler({
    schema: producerIdData,
    handle: async (room, peer, data) => {
      // Refused (403) while an admin or moderator has them muted.
      await peer.resumeOwn(data.producerId);
      room.announceMuted(peer);
      return {};
    },
  }),
  setDeafened: handler({
    schema: deafenedData,
    handle: (room, peer, data) => {
      if (peer.setDeafened(data.deafened)) room.announceDeafened(peer);
      return {};
    },
  }),
  pauseConsumer: handler({
    schema: consumerIdData,
    handle: async (_room, peer, data) => {
      await peer.consumer(data.consumerId).pause();
      return {};
    },
  }),
  resumeConsumer: handler({
    schema: consumerIdData,
    handle: async (room, peer, data) => {
      await room.resumeConsumer(peer, peer.consumer(data.consumerId));
      return {};
    },
  }),
  mutePeer: handler({
    schema: peerIdData,
    handle: async (room, peer, data) => {
      await room.moderate(peer, data.peerId, 'mute');
      return {};
    },
  }),
  unmutePeer: handler({
    schema: peerIdData,
    handle: async (room, peer, data) => {
      await room.moderate(peer, data.peerId, 'unmute');
      return {};
    },
  }),
  kickPeer: handler({
    schema: peerIdData,
    handle: async (room, peer, data) => {
      await room.moderate(peer, data.peerId, 'remove');
      return {};
    },
  }),
  raiseHand: handler({
    schema: raisedData,
    handle: (room, peer, data) => {
      room.raiseHand(peer, data.raised);
      return {};
    },
  }),
  inviteToSpeak: handler({
    schema: peerIdData,
    handle: (room, peer, data) => {
      room.inviteToSpeak(peer, data.peerId);
      return {};
    },
  }),
  moveToAudience: handler({
    schema: peerIdData,
    handle: (room, peer, data) => {
      room.moveToAudience(peer, data.peerId);
      return {};
    },
  }),
  leave: handler({
    schema: noData,
    beforeJoin: true,
    handle: (_room, peer, _data, after) => {
      after(() => peer.close());
      return {};
    },
  }),
  getTransportStats: handler({
    schema: transportIdData,
    stats: true,
    handle: (_room, peer, data) => peer.transportStats(data.transportId),
  }),
  getProducerStats: handler({
    schema: producerIdData,
    stats: true,
    handle: (_room, peer, data) => peer.producerStats(data.producerId),
  }),
  getConsumerStats: handler({
    schema: consumerIdData,
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
