/**
 * One member's connection to a room: the protoo peer, what the room token says about them,
 * and the mediasoup objects they own. A member can only ever reach its own objects: every
 * lookup here answers 404 for an id that is not theirs, whoever else it belongs to.
 */
import { RTC_LIMITS, type RtcNotifications, type RtcPeerInfo, type RtcServerRequests } from '@voice/protocol';
import type protoo from 'protoo-server';
import { RTC_ERROR, RtcRequestError } from './errors.ts';
import type { Consumer, Producer, RtpCapabilities, Transport } from './types.ts';

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
  /** Set by `join`; the capabilities its consumers are made for. */
  rtpCapabilities: RtpCapabilities | undefined;
  #tokens: number = RTC_LIMITS.requestBurst;
  #refilledAt = Date.now();
  #closed = false;

  constructor(member: RtcMember, connection: protoo.Peer) {
    this.id = member.peerId;
    this.member = member;
    this.connection = connection;
  }

  get joined(): boolean {
    return this.rtpCapabilities !== undefined;
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
    const refill = ((now - this.#refilledAt) / 1000) * RTC_LIMITS.requestsPerSecond;
    this.#tokens = Math.min(RTC_LIMITS.requestBurst, this.#tokens + refill);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
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
    this.producer = undefined;
    this.connection.close();
  }
}
