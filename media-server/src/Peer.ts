/**
 * One member's connection to a room: the protoo peer, what the room token says about them,
 * and the mediasoup objects they own. A member can only ever reach its own objects: every
 * lookup here answers 404 for an id that is not theirs, whoever else it belongs to.
 */
import {
  RTC_LIMITS,
  type RtcNotifications,
  type RtcPeerInfo,
  type RtcServerRequests,
  type RtcStats,
} from '@voice/protocol';
import type protoo from 'protoo-server';
import { RTC_ERROR, RtcRequestError } from './errors.ts';
import { statsOf } from './stats.ts';
import { TokenBucket } from './TokenBucket.ts';
import type {
  Consumer,
  DtlsParameters,
  Producer,
  RtpCapabilities,
  Transport,
  WebRtcTransport,
} from './types.ts';

/** Who a member is, from their room token. */
export interface RtcMember {
  peerId: string;
  roomId: string;
  displayName: string;
  avatarUrl: string | null;
  /** The room's admin: may mute and kick others. */
  admin: boolean;
}

/** What a transport of a member is for (mediasoup-demo's appData of transports). */
export interface TransportUse {
  producing: boolean;
  consuming: boolean;
}

export class Peer {
  readonly id: string;
  readonly member: RtcMember;
  readonly connection: protoo.Peer;
  readonly transports = new Map<string, Transport>();
  readonly consumers = new Map<string, Consumer>();
  /** One audio producer at most: a member has one voice. */
  producer: Producer | undefined;
  /** A produce request is under way (a second one in parallel must not make a second voice). */
  producing = false;
  /** The producers this member consumes or is being asked to, so none is consumed twice. */
  readonly consumedProducers = new Set<string>();
  readonly #requests = new TokenBucket(RTC_LIMITS.requestsPerSecond, RTC_LIMITS.requestBurst);
  readonly #statsRequests = new TokenBucket(RTC_LIMITS.statsPerSecond, RTC_LIMITS.statsBurst);
  /** Transports whose connect was accepted or is under way: mediasoup takes one per transport. */
  readonly #connected = new Set<string>();
  #rtpCapabilities: RtpCapabilities | undefined;
  #joined = false;
  #closed = false;

  constructor(member: RtcMember, connection: protoo.Peer) {
    this.id = member.peerId;
    this.member = member;
    this.connection = connection;
  }

  get joined(): boolean {
    return this.#joined;
  }

  /** Set by `join`; the capabilities its consumers are made for. None: the member only sends. */
  get rtpCapabilities(): RtpCapabilities | undefined {
    return this.#rtpCapabilities;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** How the others see this member; no producer counts as muted (nothing is heard). */
  get info(): RtcPeerInfo {
    const { displayName, avatarUrl, admin } = this.member;
    return { id: this.id, displayName, avatarUrl, admin, muted: this.producer?.paused ?? true };
  }

  /** Takes one request from the member's allowance (a token bucket); false when it is spent. */
  takeRequest(now = Date.now()): boolean {
    return this.#requests.take(now);
  }

  /** Takes one stats request from the member's smaller allowance for them; false when it is spent. */
  takeStatsRequest(now = Date.now()): boolean {
    return this.#statsRequests.take(now);
  }

  /** Marks the member joined; without `rtpCapabilities` it only sends and is given no consumer. */
  join(rtpCapabilities: RtpCapabilities | undefined): void {
    if (this.#joined) throw new RtcRequestError(RTC_ERROR.conflict, 'already joined');
    this.#joined = true;
    this.#rtpCapabilities = rtpCapabilities;
  }

  /** Makes `transport` the member's until it closes. */
  addTransport(transport: Transport): void {
    this.transports.set(transport.id, transport);
    transport.observer.once('close', () => {
      this.transports.delete(transport.id);
      this.#connected.delete(transport.id);
    });
  }

  /**
   * Connects the member's WebRTC transport, once: a second try is a 409 (mediasoup's worker would
   * refuse it with a bare Error, a 500). A try refused for its parameters may be made again.
   */
  async connectTransport(transport: WebRtcTransport, dtlsParameters: DtlsParameters): Promise<void> {
    // Marked before the worker answers, so two tries in parallel cannot both pass.
    if (this.#connected.has(transport.id)) {
      throw new RtcRequestError(RTC_ERROR.conflict, `transport "${transport.id}" is already connected`);
    }
    this.#connected.add(transport.id);
    try {
      await transport.connect({ dtlsParameters });
    } catch (error) {
      this.#connected.delete(transport.id);
      throw error;
    }
  }

  transport(transportId: string): Transport {
    const transport = this.transports.get(transportId);
    if (!transport) throw new RtcRequestError(RTC_ERROR.notFound, `transport "${transportId}" not found`);
    return transport;
  }

  /** The member's transport with this use, if any (mediasoup-demo's appData.producing/consuming). */
  transportFor(use: keyof TransportUse): Transport | undefined {
    for (const transport of this.transports.values()) {
      if ((transport.appData as TransportUse)[use]) return transport;
    }
    return undefined;
  }

  ownProducer(producerId: string): Producer {
    if (this.producer?.id !== producerId) {
      throw new RtcRequestError(RTC_ERROR.notFound, `producer "${producerId}" not found`);
    }
    return this.producer;
  }

  consumer(consumerId: string): Consumer {
    const consumer = this.consumers.get(consumerId);
    if (!consumer) throw new RtcRequestError(RTC_ERROR.notFound, `consumer "${consumerId}" not found`);
    return consumer;
  }

  /** mediasoup's stats of the member's transport `transportId`. */
  transportStats(transportId: string): Promise<RtcStats> {
    return statsOf(this.transport(transportId), `transport "${transportId}"`);
  }

  /** mediasoup's stats of the member's producer `producerId`. */
  producerStats(producerId: string): Promise<RtcStats> {
    return statsOf(this.ownProducer(producerId), `producer "${producerId}"`);
  }

  /**
   * mediasoup's stats of the member's consumer `consumerId`: its own entry only. mediasoup adds the
   * producer's, which tells how another member's link to the server fares, and that is theirs.
   */
  async consumerStats(consumerId: string): Promise<RtcStats> {
    const stats = await statsOf(this.consumer(consumerId), `consumer "${consumerId}"`);
    return stats.filter((entry) => entry.type === 'outbound-rtp');
  }

  /** Sends a notification; one that cannot be delivered (the socket went) is dropped. */
  async notify<M extends keyof RtcNotifications>(method: M, data: RtcNotifications[M]): Promise<void> {
    if (this.#closed) return;
    await this.connection.notify(method, data).catch(() => undefined);
  }

  /** Asks the member something; rejects when they refuse, time out or leave. */
  async request<M extends keyof RtcServerRequests>(method: M, data: RtcServerRequests[M]): Promise<unknown> {
    return this.connection.request(method, data);
  }

  /** Closes the connection and every transport (with them the producer and consumers). Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const transport of this.transports.values()) transport.close();
    this.transports.clear();
    this.consumers.clear();
    this.consumedProducers.clear();
    this.#connected.clear();
    this.producer = undefined;
    this.connection.close();
  }
}
