/**
 * One member's connection to a room: the protoo peer, what the room token says about them,
 * and the mediasoup objects they own. A member can only ever reach its own objects: every
 * lookup here answers 404 for an id that is not theirs, whoever else it belongs to.
 */
import {
  RTC_LIMITS,
  RTC_REFUSALS,
  type RtcMutedBy,
  type RtcNotifications,
  type RtcPeerInfo,
  type RtcServerRequests,
  type RtcStageRole,
  type RtcStats,
} from '@voice/protocol';
import { TokenBucket } from '@voice/signalling';
import type protoo from 'protoo-server';
import { InvalidStateError, RTC_ERROR, RtcRequestError } from './errors.ts';
import { statsOf } from './stats.ts';
import type {
  Consumer,
  DtlsParameters,
  Producer,
  RtpCapabilities,
  RtpParameters,
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
  /** Named by the admin: may mute and kick members (the room token says so, or the API later). */
  moderator: boolean;
  /** The room's K of loudest-K forwarding when the token was signed (FORWARDING). */
  loudest: number;
  /** The room is a stage (only speakers produce) when the token was signed. */
  stage: boolean;
}

/** What a transport of a member is for (mediasoup-demo's appData of transports). */
export interface TransportUse {
  producing: boolean;
  consuming: boolean;
}

/** What a producer, and each consumer of it, carries in its appData: whose voice it is. */
export interface ProducerData {
  peerId: string;
}

export class Peer {
  readonly id: string;
  readonly member: RtcMember;
  readonly connection: protoo.Peer;
  readonly #transports = new Map<string, Transport>();
  readonly #consumers = new Map<string, Consumer>();
  /** The producers this member consumes or is being asked to, so none is consumed twice. */
  readonly #consumedProducers = new Set<string>();
  /** One audio producer at most: a member has one voice. */
  #producer: Producer | undefined;
  /** A produce request is under way (a second one in parallel must not make a second voice). */
  #producing = false;
  readonly #requests = new TokenBucket(RTC_LIMITS.requestsPerSecond, RTC_LIMITS.requestBurst);
  readonly #statsRequests = new TokenBucket(RTC_LIMITS.statsPerSecond, RTC_LIMITS.statsBurst);
  readonly #handRaises = new TokenBucket(RTC_LIMITS.handRaisesPerSecond, RTC_LIMITS.handRaiseBurst);
  /** May produce: always outside a stage; on a stage as the room says (see `Room.join`). */
  #stageRole: RtcStageRole = { speaker: true, handRaised: false };
  /** Transports whose connect was accepted or is under way: mediasoup takes one per transport. */
  readonly #connected = new Set<string>();
  #rtpCapabilities: RtpCapabilities | undefined;
  #joined = false;
  #arrival = 0;
  /** Set while an admin or moderator has the member server-muted: their own resume is refused. */
  #mutedBy: RtcMutedBy | null = null;
  #deafened = false;
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

  /** The member's voice, if they send one. */
  get producer(): Producer | undefined {
    return this.#producer;
  }

  /** Consumers the member holds now. */
  get consumerCount(): number {
    return this.#consumers.size;
  }

  /** How the others see this member; no producer counts as muted (nothing is heard). */
  get info(): RtcPeerInfo {
    const { displayName, avatarUrl, admin, moderator } = this.member;
    const muted = this.#producer?.paused ?? true;
    return {
      id: this.id,
      displayName,
      avatarUrl,
      admin,
      moderator,
      muted,
      deafened: this.#deafened,
      mutedBy: this.#mutedBy,
      speaker: this.#stageRole.speaker,
      handRaised: this.#stageRole.handRaised,
    };
  }

  /** What the member may do on a stage now (outside one: a speaker, no hand). */
  get stageRole(): RtcStageRole {
    return this.#stageRole;
  }

  /** Sets what the member may do on a stage; false when it was so already. */
  setStageRole(role: RtcStageRole): boolean {
    const { speaker, handRaised } = this.#stageRole;
    if (speaker === role.speaker && handRaised === role.handRaised) return false;
    this.#stageRole = { ...role };
    return true;
  }

  /** Takes one hand raise from the member's allowance for them; false when it is spent. */
  takeHandRaise(now = Date.now()): boolean {
    return this.#handRaises.take(now);
  }

  /** The member hears nobody; false when it was so already. */
  setDeafened(deafened: boolean): boolean {
    if (deafened === this.#deafened) return false;
    this.#deafened = deafened;
    return true;
  }

  /** May mute, unmute and kick others: the admin, or a moderator. */
  get moderates(): boolean {
    return this.member.admin || this.member.moderator;
  }

  /** Who has the member server-muted, if anyone. */
  get mutedBy(): RtcMutedBy | null {
    return this.#mutedBy;
  }

  /**
   * Server-mutes the member (`by` set) or lifts it (null). Muting pauses their voice; lifting
   * leaves it paused: nobody but the member turns their microphone back on.
   */
  async setMutedBy(by: RtcMutedBy | null): Promise<void> {
    this.#mutedBy = by;
    if (by && this.#producer && !this.#producer.paused) await this.#producer.pause();
  }

  /** The member resumes their own voice: refused (403) while they are server-muted. */
  async resumeOwn(producerId: string): Promise<void> {
    const producer = this.ownProducer(producerId);
    if (this.#mutedBy) {
      throw new RtcRequestError(
        RTC_ERROR.forbidden,
        `${RTC_REFUSALS.mutedByModerator}: ${this.#mutedBy.displayName} muted you; only a moderator can unmute you`,
      );
    }
    await producer.resume();
  }

  /** Spends one request from the member's budget (a token bucket); false when it is spent. */
  spendRequestBudget(now = Date.now()): boolean {
    return this.#requests.take(now);
  }

  /** Takes one stats request from the member's smaller allowance for them; false when it is spent. */
  takeStatsRequest(now = Date.now()): boolean {
    return this.#statsRequests.take(now);
  }

  /**
   * Marks the member joined, `arrival`th in the room; without `rtpCapabilities` it only sends
   * and is given no consumer.
   */
  join(rtpCapabilities: RtpCapabilities | undefined, arrival = 0): void {
    if (this.#joined) throw new RtcRequestError(RTC_ERROR.conflict, 'already joined');
    this.#joined = true;
    this.#rtpCapabilities = rtpCapabilities;
    this.#arrival = arrival;
  }

  /** The member's place in the room's order of joining (lower: there longer). */
  get arrival(): number {
    return this.#arrival;
  }

  /** Named or unnamed a moderator while connected (the room token said otherwise). */
  setModerator(moderator: boolean): void {
    this.member.moderator = moderator;
  }

  /** Transports the member holds: each takes one port of its worker's RTC range. */
  get transportCount(): number {
    return this.#transports.size;
  }

  /** Refuses (409) a new transport once the member holds as many as one may. */
  checkTransportHeadroom(): void {
    if (this.#transports.size >= RTC_LIMITS.transportsPerPeer) {
      throw new RtcRequestError(
        RTC_ERROR.conflict,
        `at most ${RTC_LIMITS.transportsPerPeer} transports per member`,
      );
    }
  }

  /**
   * Makes `transport` the member's until it closes, unless they left or went over their share
   * meanwhile (parallel requests all passed the first check): then it is closed and refused.
   */
  adoptTransport(transport: Transport): void {
    try {
      if (this.#closed) throw new InvalidStateError('the member left while a transport was made');
      this.checkTransportHeadroom();
    } catch (error) {
      transport.close();
      throw error;
    }
    this.#transports.set(transport.id, transport);
    transport.observer.once('close', () => {
      this.#transports.delete(transport.id);
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
    const transport = this.#transports.get(transportId);
    if (!transport) throw new RtcRequestError(RTC_ERROR.notFound, `transport "${transportId}" not found`);
    return transport;
  }

  /** The member's transport with this use, if any (mediasoup-demo's appData.producing/consuming). */
  transportFor(use: keyof TransportUse): Transport | undefined {
    for (const transport of this.#transports.values()) {
      if ((transport.appData as TransportUse)[use]) return transport;
    }
    return undefined;
  }

  /**
   * The member's one audio producer, on their sending transport `transportId`: a second one, or
   * one asked for while the first is being made, is a 409.
   */
  async produce(transportId: string, rtpParameters: RtpParameters): Promise<Producer> {
    const transport = this.transport(transportId);
    if (!(transport.appData as TransportUse).producing) {
      throw new RtcRequestError(RTC_ERROR.forbidden, `transport "${transportId}" is not for sending`);
    }
    if (this.#producer || this.#producing) {
      throw new RtcRequestError(RTC_ERROR.conflict, 'already producing: one audio producer per member');
    }
    this.#producing = true;
    let producer: Producer;
    try {
      producer = await transport.produce({
        kind: 'audio',
        rtpParameters,
        // A server-muted member's new voice (after a rejoin of the transport) starts muted too.
        paused: this.#mutedBy !== null,
        appData: { peerId: this.id } satisfies ProducerData,
      });
    } finally {
      this.#producing = false;
    }
    this.#setProducer(producer);
    return producer;
  }

  ownProducer(producerId: string): Producer {
    if (this.#producer?.id !== producerId) {
      throw new RtcRequestError(RTC_ERROR.notFound, `producer "${producerId}" not found`);
    }
    return this.#producer;
  }

  /** Whether the member consumes `producerId`, or is being given a consumer of it. */
  hasConsumed(producerId: string): boolean {
    return this.#consumedProducers.has(producerId);
  }

  /**
   * Gives the member a consumer of `producerId`, made by `create` on their receiving transport.
   * Nothing is made (undefined) for a member without one or without capabilities, or who
   * already has one: the producer is marked theirs before `create` runs, so two calls in
   * parallel cannot both make one.
   */
  async addConsumer(
    producerId: string,
    create: (transport: Transport) => Promise<Consumer>,
  ): Promise<Consumer | undefined> {
    const transport = this.transportFor('consuming');
    if (!transport || !this.#rtpCapabilities || this.#closed || this.hasConsumed(producerId)) {
      return undefined;
    }
    this.#consumedProducers.add(producerId);
    let consumer: Consumer;
    try {
      consumer = await create(transport);
    } catch (error) {
      this.#consumedProducers.delete(producerId);
      throw error;
    }
    this.#consumers.set(consumer.id, consumer);
    consumer.observer.once('close', () => {
      this.#consumers.delete(consumer.id);
      this.#consumedProducers.delete(producerId);
    });
    return consumer;
  }

  consumer(consumerId: string): Consumer {
    const consumer = this.#consumers.get(consumerId);
    if (!consumer) throw new RtcRequestError(RTC_ERROR.notFound, `consumer "${consumerId}" not found`);
    return consumer;
  }

  /** The member's consumer of `producerId`, if they hold one. */
  consumerOf(producerId: string): Consumer | undefined {
    for (const consumer of this.#consumers.values()) {
      if (consumer.producerId === producerId) return consumer;
    }
    return undefined;
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

  /**
   * Closes the connection and every transport, with them the producer and consumers. Idempotent.
   * The room hears of it from the connection's `close` and forgets the member.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const transport of this.#transports.values()) transport.close();
    this.#transports.clear();
    this.#consumers.clear();
    this.#consumedProducers.clear();
    this.#connected.clear();
    this.#producer = undefined;
    this.connection.close();
  }

  /** Keeps `producer` as the member's voice until it closes; one made after they left is closed. */
  #setProducer(producer: Producer): void {
    if (this.#closed) {
      producer.close();
      throw new InvalidStateError('the member left while producing');
    }
    this.#producer = producer;
    producer.observer.once('close', () => {
      if (this.#producer === producer) this.#producer = undefined;
    });
  }
}
