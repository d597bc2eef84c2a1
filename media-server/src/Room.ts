/**
 * One group room on this media server: a mediasoup router (Opus only) on the least-loaded
 * worker and the members connected to it. Who hears whom is the forwarding policy's call
 * (LoudestK.ts: each member receives the room's K loudest voices; a member may join to send
 * only), fed with every voice's level; the room makes its changes, asking for each consumer
 * (`newConsumer`) and resuming it once the member answered if it is still due, as mediasoup-demo does. The
 * protoo methods that call into it are in roomRequests.ts, which the room does not import.
 * A room may also have parts on other media servers (RoomLinks.ts): their members are listed
 * and their voices forwarded here as any, arriving through a PipeTransport on the room's router.
 */
import {
  type RoomModeration,
  RTC_LIMITS,
  RTC_REFUSALS,
  type RtcJoinReply,
  type RtcMutedBy,
  type RtcNotifications,
  type RtcPeerInfo,
  type RtcPeersPage,
  SPEAKING_DBOV,
} from '@voice/protocol';
import type protoo from 'protoo-server';
import type { MediaConfig } from './config.ts';
import { InvalidStateError, noPortsLeft, RTC_ERROR, RtcRequestError } from './errors.ts';
import type { ForwardingChange, ForwardingPolicy } from './Forwarding.ts';
import { LoudestK } from './LoudestK.ts';
import { webRtcListenIps } from './listenIps.ts';
import { Peer, type ProducerData, type RtcMember, type TransportUse } from './Peer.ts';
import type {
  ActiveSpeakerObserver,
  AudioLevelObserver,
  AudioLevelObserverVolume,
  Consumer,
  Logger,
  PlainTransport,
  Producer,
  Router,
  RtpCapabilities,
  RtpParameters,
  Transport,
  WebRtcTransport,
} from './types.ts';
import type { WorkerPool } from './WorkerPool.ts';

/**
 * What the room's parts on other media servers are told of this one (RoomLinks.ts): its
 * members' voices, to pipe to them, and its members.
 */
export interface RoomLinkHooks {
  /** A member here has a voice now (on the room's own router). */
  voiceAdded(peerId: string, producer: Producer): void;
  /** Members here came or changed (`peers`), or left. */
  membersChanged(peers: RtcPeerInfo[], left: string[]): void;
  /** Whether this part chooses the voices forwarded in every part (see `followSelection`). */
  leads(): boolean;
  /** The part leads, and the voices it forwards changed (or a part is to be told them again). */
  selectionChanged(selection: readonly string[]): void;
  /** The part leads, and says who is acting admin for the whole room (or nobody). */
  actingAdminChanged(peerId: string | null): void;
  /** `by`, here, acts on `peerId`, a member of the part on media server `serverId`. */
  moderate(
    serverId: string,
    peerId: string,
    action: RoomModeration,
    by: { id: string; displayName: string; admin: boolean },
  ): void;
}

/** A member of a part of the room on another media server (RoomLinks). */
interface RemoteMember {
  info: RtcPeerInfo;
  serverId: string;
  arrival: number;
}

/** Why a room closes with members still in it, as the notification they get. */
export type RoomCloseNotice = 'roomClosed' | 'reconnect';

/** Options of Room.create(). */
export interface RoomOptions {
  id: string;
  pool: WorkerPool;
  config: Pick<MediaConfig, 'listenIp' | 'announcedIp'>;
  logger: Logger;
  /** Told after every join and leave who is in the room (joined members), and [] once it closed. */
  onMembers(peerIds: string[]): void;
  /** Told once, when the room has closed. */
  onClose(): void;
  /** Told when an admin or moderator (`by`) removed `peerId`, before they are told themselves. */
  onKicked?(peerId: string, by: string): void;
  /** The room's K (its `loudest` setting) for the default policy. */
  loudest: number;
  /** Who consumes whom; `LoudestK` with `loudest` when left out. */
  forwarding?: ForwardingPolicy;
  /**
   * Consumers one router of the room may hold before new members go to another router of the
   * room on another worker (MEDIA_CONSUMER_BUDGET); no limit when left out.
   */
  consumerBudget?: number;
  /** How many more members the worker holding `router` has ports for (RoomRegistry); no limit when left out. */
  seatsOn?(router: Router): number;
  /** What a router of any room carries (members and consumers), to place new routers by (RoomRegistry). */
  weightOf?(router: Router): number;
  /** The room's parts on other media servers, told of this one's members and voices (RoomLinks). */
  links?: RoomLinkHooks;
}

/**
 * One router of the room, on one worker, with the members placed on it. The first is the room's
 * own (`room.router`); a room that outgrows it gets more on other workers, and every voice is
 * piped into every part (mediasoup's pipeToRouter), so a member consumes any voice on its own.
 */
interface Part {
  readonly router: Router;
  readonly members: Set<Peer>;
  /** The producers piped into (or made on) this router, by id. */
  readonly voices: Set<string>;
  /**
   * Pipe transports open on this router (to the room's other parts, mediasoup's pipeToRouter, and
   * to its parts on other media servers, RoomLinks): each holds a port of the worker's RTC range.
   */
  pipes: number;
}

/** A part on `router`, counting the pipe transports made on it while it lives. */
function newPart(router: Router): Part {
  const part: Part = { router, members: new Set(), voices: new Set(), pipes: 0 };
  router.observer.on('newtransport', (transport: Transport) => {
    // mediasoup 3.8's classes are not loaded here (see types.ts): its PipeTransport by name.
    if (transport.constructor.name !== 'PipeTransport') return;
    part.pipes += 1;
    transport.observer.once('close', () => {
      part.pipes -= 1;
    });
  });
  return part;
}

/** Consumers held by the members placed on `part`. */
function consumersIn(part: Part): number {
  let count = 0;
  for (const peer of part.members) count += peer.consumerCount;
  return count;
}

/** How the room applies a change other than `consume` to the listener's consumer of a voice. */
const consumerChanges: Record<
  Exclude<ForwardingChange['action'], 'consume'>,
  (consumer: Consumer, listener: Peer) => Promise<void> | void
> = {
  pause: (consumer) => consumer.pause(),
  // A deafened member resumes nothing (their own undeafen asks again, see `resumeConsumer`).
  resume: (consumer, listener) => (listener.info.deafened ? undefined : consumer.resume()),
  close: (consumer, listener) => {
    consumer.close();
    void listener.notify('consumerClosed', { consumerId: consumer.id });
  },
};

/** How many times in a row a failed consume is tried again, and after how long. */
const CONSUME_RETRIES = 3;
const CONSUME_RETRY_MS = 1000;

export class Room {
  readonly id: string;
  readonly router: Router;
  readonly #options: RoomOptions;
  /** The level of every voice above the threshold now, by member (see `#observeLevel`). */
  readonly #levels = new Map<string, number>();
  /** The observers of each voice above the threshold at their last word (see `#heard`). */
  readonly #heardBy = new Map<string, Set<AudioLevelObserver>>();
  /** Failed consumes tried again in a row, by "listener speaker" (see `#consumeAgain`). */
  readonly #consumeRetries = new Map<string, number>();
  #levelsTimer: NodeJS.Timeout | null = null;
  /**
   * Members with a consume on its way to `newConsumer`: their levels wait to go with it (a change
   * of voices is one message), counted by consumes.
   */
  readonly #asking = new Map<Peer, number>();
  #levelsToldAt = 0;
  readonly #activeSpeaker: ActiveSpeakerObserver;
  readonly #peers = new Map<string, Peer>();
  /** Members of the room's parts on other media servers (RoomLinks), by id. */
  readonly #remote = new Map<string, RemoteMember>();
  /** Their voices, piped into the room's own router by RoomLinks, by member id. */
  readonly #remoteVoices = new Map<string, Producer>();
  /** The room's routers, its own first (see Part). */
  readonly #parts: Part[] = [];
  readonly #partOf = new Map<Peer, Part>();
  /** A part being made: members placed meanwhile wait for it rather than make another. */
  #addingPart: Promise<Part> | null = null;
  readonly #forwarding: ForwardingPolicy;
  /**
   * Server mutes by member id, for the room's life: leaving and coming back (a reload, a new
   * connection) does not lift one; only an admin or moderator does.
   */
  readonly #serverMuted = new Map<string, RtcMutedBy>();
  /** A stage: only speakers produce (see `setStage`). */
  #stage = false;
  /**
   * On a stage, who was invited to speak (true) or moved to the audience (false), by member id,
   * for the room's life: a reconnect keeps one's place. Others start as the admin and
   * moderators speakers, everyone else in the audience.
   */
  readonly #stagePlaces = new Map<string, boolean>();
  /** Members who came or changed, and who left, since the members were last told (`peersChanged`). */
  readonly #membership = {
    changed: new Map<string, Peer>(),
    left: new Set<string>(),
    untold: new Set<Peer>(),
    /**
     * Members who came and went between two messages: nobody here was told of them, but the
     * room's other parts may have been (a mute, a role or a resync tells them at once), so they
     * hear the leave.
     */
    leftUntold: new Set<string>(),
    /** Members elsewhere (RoomLinks) who came or changed, and who left. */
    remoteChanged: new Map<string, RtcPeerInfo>(),
    remoteLeft: new Set<string>(),
  };
  #membershipTimer: NodeJS.Timeout | null = null;
  /** The members the registry was last told of (joined ids, comma-separated). */
  #publishedMembers = '';
  #membershipToldAt = Number.NEGATIVE_INFINITY;
  /** The voices the other parts were last told this one forwards (when it leads). */
  #toldSelection = '';
  /** The levels each member was last told of, to tell it only of a change. */
  readonly #toldLevels = new WeakMap<Peer, { key: string; ids: ReadonlySet<string> }>();
  #dominant: string | null = null;
  /** The dominant speaker each member was last told of (null: nobody it hears). */
  readonly #toldActiveSpeaker = new WeakMap<Peer, string | null>();
  /** Joins so far: each joined member's place in the order of arrival (for the acting admin). */
  #joins = 0;
  /** The member shown as acting admin while the admin is away (see `actingAdmin`), or null. */
  #actingAdmin: string | null = null;
  #closed = false;

  /** Creates the router and its active-speaker observer on the pool's least-loaded worker. */
  static async create(options: RoomOptions): Promise<Room> {
    const router = await options.pool.createRouter({ roomId: options.id }, [], options.weightOf);
    try {
      const activeSpeaker = await router.createActiveSpeakerObserver();
      return new Room(options, router, activeSpeaker);
    } catch (error) {
      router.close();
      throw error;
    }
  }

  private constructor(options: RoomOptions, router: Router, activeSpeaker: ActiveSpeakerObserver) {
    this.id = options.id;
    this.#options = options;
    this.router = router;
    this.#parts.push(newPart(router));
    this.#activeSpeaker = activeSpeaker;
    this.#forwarding = options.forwarding ?? new LoudestK({ k: options.loudest });
    activeSpeaker.on('dominantspeaker', ({ producer }: { producer: Producer }) => {
      this.#tellActiveSpeaker((producer.appData as ProducerData).peerId);
    });
    // A dead worker took the router with it. The members are told to reconnect with a fresh token
    // rather than having their state rebuilt here: reconnecting is the path every client already
    // has for a dropped connection, and the registry then builds the room on a live worker.
    router.on('workerclose', () => {
      options.logger.warn(`room ${this.id}: its mediasoup worker died; members are asked to reconnect`);
      void this.close('reconnect');
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Connected members, joined or not. */
  get peerCount(): number {
    return this.#peers.size;
  }

  /** Consumers held by the members, for the announced load. */
  get consumerCount(): number {
    let count = 0;
    for (const peer of this.#peers.values()) count += peer.consumerCount;
    return count;
  }

  /** The room's routers (one per worker it spans), its own first. */
  get routers(): Router[] {
    return this.#parts.map((part) => part.router);
  }

  /**
   * The ports of their workers' RTC ranges the room takes: its members' (RTC_LIMITS.portsPerMember
   * each, one for the audience of a stage, who only receive) and its pipes' (one each), by router
   * for those placed on one, and in all for members connected and not placed yet. A part holds a
   * port for a pipe to each other worker before that pipe exists: a worker its members fill up
   * must still take the pipe to the room's next part, wherever that goes.
   */
  portsTaken(): { placed: Map<Router, number>; unplaced: number } {
    const placed = new Map<Router, number>();
    const otherWorkers = Math.max(0, this.#options.pool.size - 1);
    for (const part of this.#parts) {
      let ports = Math.max(part.pipes, otherWorkers);
      for (const peer of part.members) ports += this.#portsOf(peer);
      placed.set(part.router, ports);
    }
    let unplaced = 0;
    for (const peer of this.#peers.values()) if (!this.#partOf.has(peer)) unplaced += this.#portsOf(peer);
    return { placed, unplaced };
  }

  /** Ports a newcomer takes: one on a stage (they join the audience), else RTC_LIMITS.portsPerMember. */
  get portsPerNewcomer(): number {
    return this.#stage ? 1 : RTC_LIMITS.portsPerMember;
  }

  /**
   * A member's ports: one for a stage's audience (a receiving transport only), or two once they
   * hold a sending one too (a raised hand makes it ahead of an invitation).
   */
  #portsOf(peer: Peer): number {
    const listens = this.#stage && peer.joined && !peer.stageRole.speaker;
    return listens ? Math.max(1, peer.transportCount) : RTC_LIMITS.portsPerMember;
  }

  /** What each of the room's routers carries: its members and their consumers. */
  weightByRouter(): Map<Router, number> {
    return new Map(this.#parts.map((part) => [part.router, part.members.size + consumersIn(part)]));
  }

  /** The router `peerId` sends and receives through, once it has a transport. */
  routerOf(peerId: string): Router | undefined {
    const peer = this.#peers.get(peerId);
    return peer ? this.#partOf.get(peer)?.router : undefined;
  }

  /** The connected member `peerId`, if any. */
  peer(peerId: string): Peer | undefined {
    return this.#peers.get(peerId);
  }

  /**
   * Takes a member's new connection, until it closes. Its requests are the admitter's to wire
   * (to roomRequests.ts), so that the room knows nothing of its protoo methods.
   */
  addPeer(member: RtcMember, connection: protoo.Peer): Peer {
    if (this.#closed) throw new InvalidStateError(`room ${this.id} is closed`);
    const peer = new Peer(member, connection);
    const mutedBy = this.#serverMuted.get(peer.id);
    // No voice yet: this only marks them, so their first producer starts paused.
    if (mutedBy) void peer.setMutedBy(mutedBy);
    this.#peers.set(peer.id, peer);
    connection.on('close', () => this.#peerClosed(peer));
    return peer;
  }

  /** The joined members but `except`. */
  joinedPeers(except?: Peer): Peer[] {
    return [...this.#peers.values()].filter((peer) => peer.joined && peer !== except);
  }

  /**
   * Marks `peer` joined; the reply lists the others (the first page). Then `welcome()` makes its
   * consumers, none for a member without `rtpCapabilities` (it only sends; the others hear it
   * all the same).
   */
  join(peer: Peer, rtpCapabilities: RtpCapabilities | undefined): RtcJoinReply {
    peer.join(rtpCapabilities, ++this.#joins);
    // They moved here from another part (a reconnect): this part speaks for them from now on.
    this.#remote.delete(peer.id);
    this.#remoteVoices.get(peer.id)?.close();
    const speaker = this.#stage ? (this.#stagePlaces.get(peer.id) ?? peer.moderates) : true;
    peer.setStageRole({ speaker, handRaised: false });
    return { ...this.peersPage(0, peer), stage: this.#stage, you: peer.info };
  }

  /**
   * The joined members but `except` who came from `from` on (by arrival, which only grows, so
   * that pages read while people come and go miss nobody: those arrive in `peersChanged`).
   */
  peersPage(from: number, except: Peer): RtcPeersPage {
    const here = this.joinedPeers(except).map((peer) => ({ arrival: peer.arrival, info: peer.info }));
    const after = [...here, ...this.#remote.values()]
      .filter((member) => member.arrival >= from)
      .sort((a, b) => a.arrival - b.arrival);
    const page = after.slice(0, RTC_LIMITS.peersPage);
    const next = after[RTC_LIMITS.peersPage];
    return { peers: page.map((member) => member.info), next: next ? next.arrival : null };
  }

  /**
   * Everyone in the room: the joined members here and those of its parts on other media servers,
   * as the API is told (each part says the whole room, so it reads the same from any).
   */
  memberIds(): string[] {
    return [...this.joinedPeers().map((peer) => peer.id), ...this.#remote.keys()];
  }

  /** The joined members here, as the room's parts on other media servers are told of them. */
  localMembers(): RtcPeerInfo[] {
    return this.joinedPeers().map((peer) => peer.info);
  }

  /** The voices of the members here, on the room's own router, to pipe to the other parts. */
  localVoices(): Array<{ peerId: string; producer: Producer }> {
    return this.joinedPeers().flatMap((peer) => {
      const producer = peer.producer;
      return producer && !producer.closed ? [{ peerId: peer.id, producer }] : [];
    });
  }

  /**
   * Members of the part of the room on media server `serverId` came or changed (`peers`), or
   * left; with `all`, `peers` is everyone there and whoever else was listed from there left.
   * The members here see them as any other (`peersChanged`, `peerMuted`, ...).
   */
  remoteMembers(serverId: string, peers: readonly RtcPeerInfo[], left: readonly string[], all = false): void {
    if (this.#closed) return;
    const listed = new Set(peers.map((info) => info.id));
    const gone = [...left];
    if (all) {
      for (const [peerId, member] of this.#remote) {
        if (member.serverId === serverId && !listed.has(peerId)) gone.push(peerId);
      }
    }
    for (const peerId of gone) {
      const member = this.#remote.get(peerId);
      if (member?.serverId !== serverId) continue;
      this.#remote.delete(peerId);
      this.#remoteVoices.get(peerId)?.close();
      this.#membership.remoteChanged.delete(peerId);
      this.#membership.remoteLeft.add(peerId);
    }
    for (const info of peers) {
      // Someone who moved here (a reconnect) is this part's member, whatever the other still says.
      if (this.#peers.get(info.id)?.joined) continue;
      const known = this.#remote.get(info.id);
      this.#remote.set(info.id, { info, serverId, arrival: known?.arrival ?? ++this.#joins });
      this.#membership.remoteLeft.delete(info.id);
      if (known && this.#toldRemoteChange(known.info, info)) continue;
      this.#membership.remoteChanged.set(info.id, info);
    }
    this.#tellMembershipSoon();
    this.#updateActingAdmin();
  }

  /**
   * Tells the members here of a change to a known member elsewhere the way they hear it of one
   * here (`peerMuted`, `peerDeafened`, `peerRole`); false when it is another change, which goes
   * out with the next `peersChanged`.
   */
  #toldRemoteChange(before: RtcPeerInfo, after: RtcPeerInfo): boolean {
    const { id: peerId } = after;
    const muteChanged =
      before.muted !== after.muted || JSON.stringify(before.mutedBy) !== JSON.stringify(after.mutedBy);
    const others =
      before.displayName !== after.displayName ||
      before.avatarUrl !== after.avatarUrl ||
      before.admin !== after.admin ||
      before.speaker !== after.speaker ||
      before.handRaised !== after.handRaised;
    if (others) return false;
    if (muteChanged) this.#broadcast('peerMuted', { peerId, muted: after.muted, mutedBy: after.mutedBy });
    if (before.deafened !== after.deafened) {
      this.#broadcast('peerDeafened', { peerId, deafened: after.deafened });
    }
    if (before.moderator !== after.moderator) {
      this.#broadcast('peerRole', { peerId, moderator: after.moderator });
    }
    return true;
  }

  /**
   * The voice of `peerId`, a member of the part on media server `serverId`, made on the room's
   * own router by RoomLinks: piped into the room's other routers here and forwarded as any.
   */
  async addRemoteVoice(serverId: string, peerId: string, producer: Producer): Promise<void> {
    // A voice may come before its member does (members are told in batches, voices at once);
    // one of a member who has moved here since, or of a member of another part, is not taken.
    const remote = this.#remote.get(peerId);
    if (this.#closed || this.#peers.get(peerId)?.joined || (remote && remote.serverId !== serverId)) {
      producer.close();
      return;
    }
    this.#remoteVoices.get(peerId)?.close();
    this.#remoteVoices.set(peerId, producer);
    producer.observer.once('close', () => {
      if (this.#remoteVoices.get(peerId) === producer) this.#remoteVoices.delete(peerId);
      if (!this.#closed && !this.#voiceOf(peerId)) this.#apply(this.#forwarding.producerRemoved(peerId));
    });
    const own = this.#parts[0] as Part;
    own.voices.add(producer.id);
    await Promise.all(this.#parts.map((part) => this.#pipe(producer, own, part)));
    this.#activeSpeaker.addProducer({ producerId: producer.id }).catch(() => undefined);
    await this.#observeLevel(peerId, producer, own.router);
    if (!producer.closed) this.#apply(this.#forwarding.producerAdded(peerId));
  }

  /** The part on media server `serverId` is gone (closed, or its server died): its members left. */
  forgetPart(serverId: string): void {
    this.remoteMembers(serverId, [], [], true);
  }

  /**
   * Forwards the voices the room's leading part chose (`selection`), or with null chooses them
   * here again: this part leads now, and tells the others what it forwards.
   */
  followSelection(selection: readonly string[] | null): void {
    if (this.#closed) return;
    this.#apply(this.#forwarding.follow?.(selection) ?? []);
    if (selection !== null) return;
    this.announceSelection();
    this.#updateActingAdmin();
  }

  /** The voices chosen to be forwarded now, if the policy chooses (LoudestK), else null. */
  get selection(): readonly string[] | null {
    return this.#forwarding.selection ?? null;
  }

  /** The room's leading part tells the others what it forwards, now. */
  announceSelection(): void {
    const selection = this.#forwarding.selection;
    if (!selection || !this.#options.links?.leads()) return;
    this.#toldSelection = selection.join();
    this.#options.links.selectionChanged(selection);
  }

  /** The voice of member `peerId`, here or on another part, if any. */
  #voiceOf(peerId: string): Producer | undefined {
    const local = this.#peers.get(peerId)?.producer;
    if (local && !local.closed) return local;
    const remote = this.#remoteVoices.get(peerId);
    return remote && !remote.closed ? remote : undefined;
  }

  /**
   * After the join reply: the others learn of `peer`, `peer` gets the voices it is due and hears
   * who is acting admin.
   */
  welcome(peer: Peer): void {
    this.#membership.untold.add(peer);
    this.#membershipChanged(peer);
    this.#apply(this.#forwarding.peerJoined(peer.id));
    this.#updateActingAdmin(peer);
  }

  /**
   * Whether the room is a stage (its room tokens say; a room's stage mode is fixed when it is
   * made, so this only takes effect for members who join from now on).
   */
  setStage(stage: boolean): void {
    this.#stage = stage;
  }

  get stage(): boolean {
    return this.#stage;
  }

  /** The room's K changed (a later token carries the room's new settings). */
  setLoudest(k: number): void {
    this.#apply(this.#forwarding.setLoudest(k));
  }

  /** The member shown as acting admin now (null while the admin is in, or nobody is). */
  get actingAdmin(): string | null {
    return this.#actingAdmin;
  }

  /** A WebRTC transport for `peer`, listening where the config says, its incoming bitrate capped. */
  async createWebRtcTransport(
    peer: Peer,
    use: TransportUse & { forceTcp: boolean },
  ): Promise<WebRtcTransport> {
    peer.checkTransportHeadroom();
    const { producing, consuming, forceTcp } = use;
    const part = await this.#place(peer);
    const transport = await part.router
      .createWebRtcTransport({
        listenIps: webRtcListenIps(this.#options.config),
        enableUdp: !forceTcp,
        enableTcp: true,
        preferUdp: !forceTcp,
        appData: { producing, consuming } satisfies TransportUse,
      })
      .catch((error: unknown) => {
        // The worker found no free port (a stage's listener invited to speak on a worker whose
        // ports went to others meanwhile). mediasoup-worker 3.8.4 says so with an empty reason
        // ("[method:router.createWebRtcTransport]"), its only failure for valid listen addresses.
        if (
          error instanceof Error &&
          /^\s*\[method:router\.createWebRtcTransport\]\s*$/.test(error.message)
        ) {
          throw noPortsLeft();
        }
        throw error;
      });
    try {
      await transport.setMaxIncomingBitrate(RTC_LIMITS.maxIncomingBitrate);
    } catch (error) {
      transport.close();
      throw error;
    }
    this.#adopt(peer, transport);
    return transport;
  }

  /**
   * A PlainTransport (RTP over UDP, no ICE or DTLS) for the connected member `peerId`, used as a
   * WebRTC one would be: benchmarks and tests send and receive Opus through it. Never offered
   * over protoo. A producing transport learns where to send RTCP from the first packet (comedia);
   * a consuming one must be given the receiver's address with `connect()` (with `srtp`, also
   * `srtpParameters`: a key for what it would receive).
   */
  async createPlainTransport(
    peerId: string,
    use: TransportUse & { srtp?: boolean },
    listenIp = '127.0.0.1',
  ): Promise<PlainTransport> {
    const peer = this.#peers.get(peerId);
    if (!peer) throw new InvalidStateError(`peer ${peerId} is not in room ${this.id}`);
    peer.checkTransportHeadroom();
    const part = await this.#place(peer);
    const transport = await part.router.createPlainTransport({
      listenIp,
      rtcpMux: true,
      comedia: use.producing,
      // SRTP, as a browser's DTLS-SRTP costs the worker (benchmarks count its encryption).
      ...(use.srtp ? { enableSrtp: true, srtpCryptoSuite: 'AES_CM_128_HMAC_SHA1_80' as const } : {}),
      appData: { producing: use.producing, consuming: use.consuming } satisfies TransportUse,
    });
    this.#adopt(peer, transport);
    return transport;
  }

  /** `peer`'s one audio producer on its sending transport; `announceProducer` forwards it. */
  async produce(peer: Peer, transportId: string, rtpParameters: RtpParameters): Promise<Producer> {
    this.#checkSpeaker(peer);
    const producer = await peer.produce(transportId, rtpParameters);
    // Moved to the audience while the worker made it.
    if (!peer.stageRole.speaker) {
      producer.close();
      this.#checkSpeaker(peer);
    }
    producer.observer.once('close', () => {
      if (!this.#closed) this.#apply(this.#forwarding.producerRemoved(peer.id));
    });
    const own = this.#partOf.get(peer) ?? (this.#parts[0] as Part);
    own.voices.add(producer.id);
    // Into every other part before anyone there is asked to consume it (the room's own too,
    // where the active-speaker observer listens).
    await Promise.all(this.#parts.map((part) => this.#pipe(producer, own, part)));
    // Observers only ever miss a voice if the router is gone, and then so is the room.
    this.#activeSpeaker.addProducer({ producerId: producer.id }).catch(() => undefined);
    await this.#observeLevel(peer.id, producer, own.router);
    return producer;
  }

  /**
   * After the produce reply: the others get consumers as forwarding says, and hear of the voice
   * with the next `peersChanged` (every member producing as they join must not make one message
   * each for everyone).
   */
  announceProducer(peer: Peer, producer: Producer): void {
    // Closed before the reply went out: forwarding already heard it was removed.
    if (!producer.closed) {
      this.#apply(this.#forwarding.producerAdded(peer.id));
      this.#options.links?.voiceAdded(peer.id, producer);
    }
    this.#membershipChanged(peer);
    // The member hears at once whether their voice starts muted (a server mute kept from before).
    const { muted, mutedBy } = peer.info;
    void peer.notify('peerMuted', { peerId: peer.id, muted, mutedBy });
  }

  /** A member's own resume of a consumer (undeafening): only a voice forwarded to them flows. */
  async resumeConsumer(peer: Peer, consumer: Consumer): Promise<void> {
    const speaker = (consumer.appData as ProducerData).peerId;
    if (this.#forwarding.stateOf(peer.id, speaker) === 'forwarded') await consumer.resume();
  }

  /** Tells every joined member whether `peer` hears them. */
  announceDeafened(peer: Peer): void {
    this.#broadcast('peerDeafened', { peerId: peer.id, deafened: peer.info.deafened });
    this.#options.links?.membersChanged([peer.info], []);
  }

  /** Tells every joined member whether `peer` can be heard. */
  announceMuted(peer: Peer): void {
    const { muted, mutedBy } = peer.info;
    this.#broadcast('peerMuted', { peerId: peer.id, muted, mutedBy });
    this.#options.links?.membersChanged([peer.info], []);
  }

  /**
   * A joined member other than `by`, for the admin's and moderators' requests: the admin may act
   * on anyone, a moderator on members who are neither the admin nor moderators.
   */
  target(by: Peer, peerId: string): Peer {
    this.#moderator(by);
    if (peerId === by.id) throw new RtcRequestError(RTC_ERROR.badRequest, 'not on yourself');
    const peer = this.#joinedMember(peerId);
    if (!by.member.admin && peer.moderates) {
      throw new RtcRequestError(
        RTC_ERROR.forbidden,
        'a moderator may not do this to the admin or another moderator',
      );
    }
    return peer;
  }

  /**
   * `by` (admin or moderator) server-mutes `peerId`, lets them speak again, or removes them:
   * a member here, or one of the room's part on another media server, which is asked to (it
   * checks the same rules). A moderator acts on neither the admin nor another moderator.
   */
  async moderate(by: Peer, peerId: string, action: RoomModeration): Promise<void> {
    const remote = this.#remote.get(peerId);
    if (!remote || this.#peers.get(peerId)?.joined) {
      const target = this.target(by, peerId);
      if (action === 'remove') await this.remove(by, target);
      else await this.setServerMuted(by, target, action === 'mute');
      return;
    }
    this.#moderator(by);
    if (!by.member.admin && (remote.info.admin || remote.info.moderator)) {
      throw new RtcRequestError(
        RTC_ERROR.forbidden,
        'a moderator may not do this to the admin or another moderator',
      );
    }
    const { displayName, admin } = by.member;
    this.#options.links?.moderate(remote.serverId, peerId, action, { id: by.id, displayName, admin });
  }

  /**
   * An admin or moderator (`by`) on the room's part on another media server acts on `peerId`,
   * if they are a member here and `by` may (a moderator acts on neither admin nor moderators).
   */
  async moderatedElsewhere(
    by: { id: string; displayName: string; admin: boolean },
    peerId: string,
    action: RoomModeration,
  ): Promise<void> {
    const target = this.#peers.get(peerId);
    if (!target?.joined || target.closed || (!by.admin && target.moderates)) return;
    if (action === 'remove') {
      this.#options.onKicked?.(target.id, by.id);
      await this.kick(target.id);
      return;
    }
    await this.#setMutedBy(target, action === 'mute' ? { id: by.id, displayName: by.displayName } : null);
  }

  /**
   * `by` server-mutes `target` (their voice pauses, their own resume is refused) or lifts it
   * (they stay muted until they unmute themselves). Everyone hears who did it.
   */
  async setServerMuted(by: Peer, target: Peer, muted: boolean): Promise<void> {
    await this.#setMutedBy(target, muted ? { id: by.id, displayName: by.member.displayName } : null);
  }

  async #setMutedBy(target: Peer, mutedBy: RtcMutedBy | null): Promise<void> {
    if (mutedBy) this.#serverMuted.set(target.id, mutedBy);
    else this.#serverMuted.delete(target.id);
    await target.setMutedBy(mutedBy);
    this.announceMuted(target);
  }

  /** `by` removes `target`, who is kept out for a while (told first, so it holds when they hear). */
  async remove(by: Peer, target: Peer): Promise<void> {
    this.#options.onKicked?.(target.id, by.id);
    await this.kick(target.id);
  }

  /** Refuses (403, RTC_REFUSALS.notASpeaker) a voice from the audience of a stage. */
  #checkSpeaker(peer: Peer): void {
    if (peer.stageRole.speaker) return;
    throw new RtcRequestError(
      RTC_ERROR.forbidden,
      `${RTC_REFUSALS.notASpeaker}: only speakers talk on this stage; raise your hand to ask`,
    );
  }

  /** Refuses (409) a stage request in a room that is not a stage. */
  #checkStage(): void {
    if (!this.#stage) throw new RtcRequestError(RTC_ERROR.conflict, 'this room is not a stage');
  }

  /** `peer`, in the audience of a stage, raises or lowers their hand (rate-limited: 429). */
  raiseHand(peer: Peer, raised: boolean): void {
    this.#checkStage();
    if (!peer.takeHandRaise()) throw new RtcRequestError(RTC_ERROR.tooManyRequests, 'too many hand raises');
    if (peer.stageRole.speaker) {
      throw new RtcRequestError(RTC_ERROR.conflict, 'you are a speaker already: there is no hand to raise');
    }
    this.#setStageRole(peer, { speaker: false, handRaised: raised });
  }

  /**
   * `by` (admin or moderator) lets `peerId` speak: someone whose hand is up, or themselves.
   * The member is told at once (they start their voice); the others with the next `peersChanged`.
   */
  inviteToSpeak(by: Peer, peerId: string): void {
    this.#checkStage();
    this.#moderator(by);
    const peer = peerId === by.id ? by : this.#joinedMember(peerId);
    if (peer.stageRole.speaker) throw new RtcRequestError(RTC_ERROR.conflict, 'already a speaker');
    if (peer !== by && !peer.stageRole.handRaised) {
      throw new RtcRequestError(
        RTC_ERROR.conflict,
        'only someone who raised their hand can be invited to speak',
      );
    }
    this.#stagePlaces.set(peer.id, true);
    this.#setStageRole(peer, { speaker: true, handRaised: false });
  }

  /**
   * A speaker goes back to the audience: moved by an admin or moderator (a moderator moves
   * neither the admin nor another moderator), or stepping down themselves. Their voice is closed.
   */
  moveToAudience(by: Peer, peerId: string): void {
    this.#checkStage();
    const peer = peerId === by.id ? by : this.target(by, peerId);
    if (!peer.stageRole.speaker) throw new RtcRequestError(RTC_ERROR.conflict, 'not a speaker');
    this.#stagePlaces.set(peer.id, false);
    this.#setStageRole(peer, { speaker: false, handRaised: false });
    peer.producer?.close();
  }

  /** `peer`'s place on the stage: they hear it at once, the others with the next `peersChanged`. */
  #setStageRole(peer: Peer, role: { speaker: boolean; handRaised: boolean }): void {
    if (!peer.setStageRole(role)) return;
    void peer.notify('stage', peer.stageRole);
    this.#membershipChanged(peer);
  }

  /** `by` when they are the admin or a moderator, else 403. */
  #moderator(by: Peer): Peer {
    if (!by.moderates) {
      throw new RtcRequestError(RTC_ERROR.forbidden, 'only the room admin or a moderator may do this');
    }
    return by;
  }

  /** The joined member `peerId`, else 404. */
  #joinedMember(peerId: string): Peer {
    const peer = this.#peers.get(peerId);
    if (!peer?.joined) throw new RtcRequestError(RTC_ERROR.notFound, `peer "${peerId}" not found`);
    return peer;
  }

  /** The admin named or unnamed `peerId` a moderator (over the API): the room shows it at once. */
  setModerator(peerId: string, moderator: boolean): void {
    const peer = this.#peers.get(peerId);
    if (!peer || peer.member.moderator === moderator) return;
    peer.setModerator(moderator);
    if (!peer.joined) return;
    this.#broadcast('peerRole', { peerId, moderator });
    this.#options.links?.membersChanged([peer.info], []);
    this.#updateActingAdmin();
  }

  /**
   * Removes the member `peerId`, who is told why first: `kicked` (the admin, or lost access) or
   * `inCall` (they took a 1:1 call). The others get `peerClosed`.
   */
  async kick(peerId: string, notice: 'kicked' | 'inCall' = 'kicked'): Promise<void> {
    const peer = this.#peers.get(peerId);
    if (!peer) return;
    await peer.notify(notice, {});
    peer.close();
  }

  /**
   * Asks every member to join again (`reconnect`): this media server is draining, and the API
   * places the room elsewhere. They leave by themselves; `close('reconnect')` ends the stragglers.
   */
  async askToMove(): Promise<void> {
    await Promise.all([...this.#peers.values()].map((peer) => peer.notify('reconnect', {})));
  }

  /** Closes the room if nobody is in it (a member that never arrived leaves it empty). */
  closeIfEmpty(): void {
    // Deferred: a member reconnecting closes their old connection just before the new one is
    // added, and the room must not close in between.
    setImmediate(() => {
      if (this.#peers.size === 0) void this.close();
    });
  }

  /**
   * Closes the room: every member gets `notice` (if any) and is disconnected, the router closes.
   * Idempotent.
   */
  async close(notice?: RoomCloseNotice): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#levelsTimer) clearTimeout(this.#levelsTimer);
    if (this.#membershipTimer) clearTimeout(this.#membershipTimer);
    const peers = [...this.#peers.values()];
    if (notice) await Promise.all(peers.map((peer) => peer.notify(notice, {})));
    for (const peer of peers) peer.close();
    this.#peers.clear();
    for (const part of this.#parts) part.router.close();
    this.#options.onMembers([]);
    this.#options.onClose();
  }

  /**
   * The part `peer` sends and receives through, chosen with its first transport: the first part
   * under the consumer budget whose worker has ports left, else a new part on another worker.
   */
  async #place(peer: Peer): Promise<Part> {
    for (;;) {
      const placed = this.#partOf.get(peer);
      if (placed) return placed;
      const budget = this.#options.consumerBudget ?? Number.POSITIVE_INFINITY;
      const seatsOn = this.#options.seatsOn ?? (() => Number.POSITIVE_INFINITY);
      const roomy = this.#parts.find(
        (part) => !part.router.closed && consumersIn(part) < budget && seatsOn(part.router) > 0,
      );
      if (roomy) {
        this.#partOf.set(peer, roomy);
        roomy.members.add(peer);
        return roomy;
      }
      this.#addingPart ??= this.#addPart().finally(() => {
        this.#addingPart = null;
      });
      await this.#addingPart;
      if (this.#closed || peer.closed) throw new InvalidStateError(`room ${this.id} or its member closed`);
    }
  }

  /** A new part on another worker, every voice of the room piped into it. */
  async #addPart(): Promise<Part> {
    const router = await this.#options.pool.createRouter(
      { roomId: this.id, part: this.#parts.length },
      this.#parts.map((part) => part.router),
      this.#options.weightOf,
    );
    if (this.#closed) {
      router.close();
      throw new InvalidStateError(`room ${this.id} is closed`);
    }
    const part = newPart(router);
    this.#parts.push(part);
    this.#options.logger.info(
      `room ${this.id}: a part of it on another worker (${this.#parts.length} parts)`,
    );
    // A dead worker takes its part: those members join again (to a live part), the rest stay.
    router.on('workerclose', () => this.#partLost(part));
    const voices = [...this.#peers.values()].flatMap((peer) => {
      const producer = peer.producer;
      const from = this.#partOf.get(peer);
      return producer && from && from !== part ? [{ producer, from }] : [];
    });
    // The voices from the room's parts on other media servers arrive on its own router.
    const own = this.#parts[0] as Part;
    for (const producer of this.#remoteVoices.values()) voices.push({ producer, from: own });
    await Promise.all(voices.map(({ producer, from }) => this.#pipe(producer, from, part)));
    return part;
  }

  /** Makes `producer` (on `from`'s router) consumable in `to`, once. */
  async #pipe(producer: Producer, from: Part, to: Part): Promise<void> {
    if (to.voices.has(producer.id) || producer.closed || to.router.closed) return;
    to.voices.add(producer.id);
    try {
      const { pipeProducer } = await from.router.pipeToRouter({
        producerId: producer.id,
        router: to.router,
        enableSctp: false,
      });
      pipeProducer?.observer.once('close', () => to.voices.delete(producer.id));
    } catch (error) {
      to.voices.delete(producer.id);
      // The voice or a router closed meanwhile: nothing to carry.
      this.#options.logger.debug(`room ${this.id}: a voice not piped: ${(error as Error).message}`);
    }
  }

  /** A part's worker died: its members are asked to join again; the others go on. */
  #partLost(part: Part): void {
    const at = this.#parts.indexOf(part);
    if (at > 0) this.#parts.splice(at, 1);
    this.#options.logger.warn(
      `room ${this.id}: a worker holding part of it died; its members are asked to reconnect`,
    );
    for (const peer of part.members) {
      this.#partOf.delete(peer);
      void peer.notify('reconnect', {}).finally(() => peer.close());
    }
    part.members.clear();
  }

  /** `peer` leaves its part; a part other than the room's own closes when nobody is left on it. */
  #unplace(peer: Peer): void {
    const part = this.#partOf.get(peer);
    if (!part) return;
    this.#partOf.delete(peer);
    part.members.delete(peer);
    if (part !== this.#parts[0] && part.members.size === 0 && !this.#closed) {
      this.#parts.splice(this.#parts.indexOf(part), 1);
      part.router.close();
    }
  }

  /** Makes a new transport `peer`'s (or closes it if they cannot have it). */
  #adopt(peer: Peer, transport: Transport): void {
    peer.adoptTransport(transport);
    // A receiving transport made after the join still gets the voices already there.
    if ((transport.appData as TransportUse).consuming && peer.joined) {
      this.#apply(this.#forwarding.peerCanReceive(peer.id));
    }
  }

  /**
   * Makes forwarding's changes. One that no longer fits is skipped: its listener or speaker
   * left, or the voice closed; a consume for a member that cannot receive makes nothing. The
   * consumers closed to make room for a new one are closed at once and told with it (`closed`
   * of `newConsumer`), as are the levels: a change of voices is one message to the listener.
   */
  #apply(changes: readonly ForwardingChange[]): void {
    // The leading part's choice changed: the other parts forward the same.
    const selection = this.#forwarding.selection;
    if (selection && selection.join() !== this.#toldSelection) this.announceSelection();
    const consuming = new Set(changes.filter(({ action }) => action === 'consume').map((c) => c.listener));
    // A listener's closes, handed to its first consume (filled before that consume asks).
    const closes = new Map<string, { ids: string[]; handed: boolean }>();
    const closesOf = (listenerId: string) => {
      const list = closes.get(listenerId) ?? { ids: [], handed: false };
      closes.set(listenerId, list);
      return list;
    };
    for (const { action, listener: listenerId, speaker: speakerId } of changes) {
      const listener = this.#peers.get(listenerId);
      const producer = this.#voiceOf(speakerId);
      if (!listener?.joined || listener.closed || !producer) continue;
      if (action === 'consume') {
        const list = closesOf(listenerId);
        const withCloses = !list.handed;
        list.handed = true;
        this.#asking.set(listener, (this.#asking.get(listener) ?? 0) + 1);
        void this.#consume(listener, speakerId, producer, withCloses ? list.ids : []).then((asked) => {
          // It asked nothing: the closes, and the levels held for it, are told on their own.
          if (asked) return;
          this.#doneAsking(listener);
          if (withCloses) this.#tellClosed(listener, list.ids);
          this.#tellLevelsSoon();
        });
        continue;
      }
      const consumer = listener.consumerOf(producer.id);
      if (!consumer) continue;
      if (action === 'close' && consuming.has(listenerId)) {
        consumer.close();
        closesOf(listenerId).ids.push(consumer.id);
        continue;
      }
      Promise.resolve(consumerChanges[action](consumer, listener)).catch((error: Error) => {
        // The consumer or its transport closed meanwhile: nothing left to change.
        this.#options.logger.debug(`room ${this.id}: ${action} for ${listenerId} failed: ${error.message}`);
      });
    }
    // Closes whose listener's consumes were all skipped.
    for (const [listenerId, { ids, handed }] of closes) {
      if (!handed) this.#tellClosed(this.#peers.get(listenerId), ids);
    }
  }

  #tellClosed(peer: Peer | undefined, consumerIds: readonly string[]): void {
    for (const consumerId of consumerIds) void peer?.notify('consumerClosed', { consumerId });
  }

  /**
   * A consumer of `producer` for `peer` on its receiving transport, created paused: `peer` is asked
   * to take it (`newConsumer`, with the consumers `closed` for it and, when who speaks among what
   * it receives changed, the levels) and it is resumed on the answer, so no packet arrives before
   * the client is ready for it. Nothing happens without a receiving transport or the codec.
   */
  async #consume(
    peer: Peer,
    speakerId: string,
    producer: Producer,
    closed: readonly string[] = [],
  ): Promise<boolean> {
    const { rtpCapabilities } = peer;
    const router = this.#partOf.get(peer)?.router ?? this.router;
    let consumer: Consumer | undefined;
    // Whether `newConsumer` went out, the closes with it.
    let asked = false;
    try {
      if (!rtpCapabilities || !router.canConsume({ producerId: producer.id, rtpCapabilities })) return asked;
      consumer = await peer.addConsumer(producer.id, (transport) =>
        transport.consume({
          producerId: producer.id,
          rtpCapabilities,
          paused: true,
          appData: { peerId: speakerId } satisfies ProducerData,
        }),
      );
      if (!consumer) return asked;
      const made = consumer;
      made.on('producerclose', () => void peer.notify('consumerClosed', { consumerId: made.id }));
      made.on('producerpause', () => void peer.notify('consumerPaused', { consumerId: made.id }));
      made.on('producerresume', () => void peer.notify('consumerResumed', { consumerId: made.id }));
      this.#doneAsking(peer);
      asked = true;
      const levels = this.#levelsUpdate(peer);
      const answered = peer.request('newConsumer', {
        peerId: speakerId,
        producerId: producer.id,
        id: made.id,
        kind: 'audio',
        rtpParameters: made.rtpParameters,
        type: made.type,
        appData: made.appData,
        producerPaused: made.producerPaused,
        ...(closed.length > 0 && { closed: [...closed] }),
        ...(levels && { levels: levels.levels }),
      });
      levels?.after();
      await answered;
      // Closed while the member took it (forwarding let it go, or its voice or transport went).
      if (made.closed) return asked;
      // Forwarding may have moved on while the member took it: resume only what is still due.
      const state = this.#forwarding.stateOf(peer.id, speakerId);
      if (state === 'forwarded' && !peer.info.deafened) await made.resume();
      else if (state === 'none') consumerChanges.close(made, peer);
      this.#consumeRetries.delete(`${peer.id} ${speakerId}`);
    } catch (error) {
      // Closed meanwhile: what closed it saw to the rest (and a newer consumer of the same voice,
      // made since, is not this one's to close).
      if (consumer?.closed) return asked;
      // Refused or timed out: none then, and forwarding is told, so that the voice is asked again.
      if (consumer) consumerChanges.close(consumer, peer);
      if (peer.closed || producer.closed || this.#closed) return asked;
      this.#options.logger.debug(`room ${this.id}: no consumer for ${peer.id}: ${(error as Error).message}`);
      this.#consumeAgain(peer.id, speakerId);
    }
    return asked;
  }

  #doneAsking(peer: Peer): void {
    const left = (this.#asking.get(peer) ?? 1) - 1;
    if (left > 0) this.#asking.set(peer, left);
    else this.#asking.delete(peer);
  }

  /**
   * A consume failed: forwarding forgets it, and the voice is asked for once more a little later
   * if it is still due (at most CONSUME_RETRIES times in a row, for a member that
   * keeps refusing).
   */
  #consumeAgain(listenerId: string, speakerId: string): void {
    const key = `${listenerId} ${speakerId}`;
    const tries = (this.#consumeRetries.get(key) ?? 0) + 1;
    const again = this.#forwarding.consumerLost(listenerId, speakerId);
    if (tries > CONSUME_RETRIES) {
      this.#consumeRetries.delete(key);
      return;
    }
    this.#consumeRetries.set(key, tries);
    const timer = setTimeout(() => {
      if (!this.#closed) this.#apply(again);
    }, CONSUME_RETRY_MS);
    timer.unref();
  }

  /**
   * The member's connection closed (they left, were kicked, or `peer.close()` ran: the "I close
   * and tell my parent" path); the room forgets them. While the room itself closes it only
   * forgets: nobody is left to tell.
   */
  #peerClosed(peer: Peer): void {
    this.#unplace(peer);
    if (this.#peers.get(peer.id) !== peer) return;
    this.#peers.delete(peer.id);
    const wasJoined = peer.joined;
    peer.close();
    // Consumes asked again for them, or of their voice, are over with them.
    for (const key of this.#consumeRetries.keys()) {
      if (key.split(' ').includes(peer.id)) this.#consumeRetries.delete(key);
    }
    if (this.#closed) return;
    if (wasJoined) {
      this.#apply(this.#forwarding.peerLeft(peer.id));
      this.#membershipLeft(peer);
      this.#updateActingAdmin();
    }
    this.closeIfEmpty();
  }

  /**
   * Who is acting admin: nobody while the admin is in; else the moderator who joined first, else
   * the member who did. Everyone hears a change; `newcomer` hears it even without one.
   */
  #updateActingAdmin(newcomer?: Peer): void {
    // A room across media servers has one: the leading part's (see `setActingAdmin`).
    if (this.#options.links && !this.#options.links.leads()) {
      if (newcomer && this.#actingAdmin !== null) {
        void newcomer.notify('actingAdmin', { peerId: this.#actingAdmin });
      }
      return;
    }
    const here = this.joinedPeers().map((peer) => ({ arrival: peer.arrival, info: peer.info }));
    const joined = [...here, ...this.#remote.values()];
    let acting: { info: RtcPeerInfo } | undefined;
    if (!joined.some((member) => member.info.admin)) {
      const byArrival = joined.sort((a, b) => a.arrival - b.arrival);
      acting = byArrival.find((member) => member.info.moderator) ?? byArrival[0];
    }
    this.setActingAdmin(acting?.info.id ?? null, newcomer);
    this.#options.links?.actingAdminChanged(this.#actingAdmin);
  }

  /**
   * Who is acting admin now: as chosen here, or by the room's leading part on another media
   * server. Everyone here hears a change; `newcomer` hears it even without one.
   */
  setActingAdmin(peerId: string | null, newcomer?: Peer): void {
    if (peerId !== this.#actingAdmin) {
      this.#actingAdmin = peerId;
      this.#broadcast('actingAdmin', { peerId });
    } else if (newcomer && peerId !== null) {
      void newcomer.notify('actingAdmin', { peerId });
    }
  }

  /**
   * Tells each member the levels of the voices it receives now that speak, and its own, loudest
   * first, so that its speaking rings follow what it hears (with loudest-K a listener receives K
   * of the K+1 voices chosen: one in the first K hears the K+1-th instead of itself). Only when
   * who speaks changed for that member (the rings show no more than that), and at most once an
   * interval (4 a second).
   */
  #tellLevels(): void {
    const speaking = this.#speakingVoices();
    for (const peer of this.joinedPeers()) {
      if (this.#asking.has(peer)) continue;
      const update = this.#levelsUpdate(peer, speaking);
      if (!update) continue;
      void peer.notify('audioLevels', { levels: update.levels });
      update.after();
    }
  }

  /** The room's forwarded voices that speak now (above SPEAKING_DBOV), loudest first. */
  #speakingVoices(): RtcNotifications['audioLevels']['levels'] {
    const forwarded = this.#forwarding.forwardedVoices();
    return [...this.#levels]
      .filter(([peerId, volume]) => volume > SPEAKING_DBOV && (!forwarded || forwarded.has(peerId)))
      .map(([peerId, volume]) => ({ peerId, volume }))
      .sort((a, b) => b.volume - a.volume);
  }

  /**
   * The levels `peer` is to be told now (see `#tellLevels`), of `speaking` those it receives and
   * its own; null when who speaks among them did not change since it was last told; marked
   * told. `after` is to run once they were sent: a dominant speaker leaving what the member
   * hears is told before the levels, one entering after them, so its rings never show more
   * voices than it receives.
   */
  #levelsUpdate(
    peer: Peer,
    speaking = this.#speakingVoices(),
  ): { levels: RtcNotifications['audioLevels']['levels']; after: () => void } | null {
    const levels = speaking.filter(
      ({ peerId }) => peerId === peer.id || this.#forwarding.stateOf(peer.id, peerId) === 'forwarded',
    );
    const ids = new Set(levels.map(({ peerId }) => peerId));
    const key = [...ids].sort().join();
    if (key === this.#toldLevels.get(peer)?.key) return null;
    const active = this.#activeSpeakerFor(peer, ids);
    if (active === null) this.#tellActiveSpeakerTo(peer, null);
    this.#toldLevels.set(peer, { key, ids });
    return { levels, after: () => active !== null && this.#tellActiveSpeakerTo(peer, active) };
  }

  /** The room's dominant speaker (ActiveSpeakerObserver), null while the room is silent. */
  #tellActiveSpeaker(dominant: string | null): void {
    this.#dominant = dominant;
    for (const peer of this.joinedPeers()) {
      this.#tellActiveSpeakerTo(peer, this.#activeSpeakerFor(peer, this.#toldLevels.get(peer)?.ids));
    }
  }

  /**
   * The dominant speaker as `peer` is told it: only a voice among the levels it was told (the
   * voices it receives) or its own, otherwise nobody.
   */
  #activeSpeakerFor(peer: Peer, heard: ReadonlySet<string> | undefined): string | null {
    const dominant = this.#dominant;
    return dominant === peer.id || (dominant !== null && heard?.has(dominant)) ? dominant : null;
  }

  #tellActiveSpeakerTo(peer: Peer, peerId: string | null): void {
    if (this.#toldActiveSpeaker.get(peer) === peerId) return;
    this.#toldActiveSpeaker.set(peer, peerId);
    void peer.notify('activeSpeaker', { peerId });
  }

  /**
   * Follows the level of `producer`'s voice with AudioLevelObservers of its own. One shared by
   * the room would do less work, but mediasoup 3.8's keeps each interval's results in a map keyed
   * by volume: of two voices at the same average level, one is not reported, and forwarding must
   * not lose a voice to that. An observer says the voice's level at the end of every interval
   * (250 ms at least, in the worker) while it is above the threshold, and `silence` once when it
   * falls below; a second one half an interval later halves how long a change takes to be seen.
   */
  async #observeLevel(peerId: string, producer: Producer, router: Router): Promise<void> {
    const interval = RTC_LIMITS.audioLevelIntervalMs;
    await this.#levelObserver(peerId, producer, router);
    const later = setTimeout(
      () => void this.#levelObserver(peerId, producer, router).catch(() => undefined),
      interval / 2,
    );
    later.unref();
    producer.observer.once('close', () => clearTimeout(later));
  }

  async #levelObserver(peerId: string, producer: Producer, router: Router): Promise<void> {
    if (producer.closed) return;
    const observer = await router.createAudioLevelObserver({
      maxEntries: 1,
      interval: RTC_LIMITS.audioLevelIntervalMs,
    });
    if (producer.closed) {
      observer.close();
      return;
    }
    producer.observer.once('close', () => {
      observer.close();
      this.#heardBy.delete(peerId);
      if (this.#levels.delete(peerId)) this.#levelsChanged();
    });
    observer.on('volumes', ([entry]: AudioLevelObserverVolume[]) => {
      if (!entry || producer.closed) return;
      this.#heard(peerId, observer, entry.volume);
    });
    observer.on('silence', () => this.#heard(peerId, observer, null));
    await observer.addProducer({ producerId: producer.id }).catch(() => undefined);
  }

  /**
   * What one of a voice's two observers said: its level is the latest said, and it is silent only
   * once both said so (one alone saying silence while the other still hears it is half an
   * interval of a pause, which would make forwarding switch voices between two words).
   */
  #heard(peerId: string, observer: AudioLevelObserver, volume: number | null): void {
    const hearing = this.#heardBy.get(peerId) ?? new Set<AudioLevelObserver>();
    if (volume !== null) {
      hearing.add(observer);
      this.#heardBy.set(peerId, hearing);
      this.#levels.set(peerId, volume);
      this.#levelsChanged();
      return;
    }
    hearing.delete(observer);
    if (hearing.size > 0) return;
    this.#heardBy.delete(peerId);
    if (this.#levels.delete(peerId)) this.#levelsChanged();
  }

  /** A voice's level changed: forwarding hears it now, the members within the interval. */
  #levelsChanged(): void {
    if (this.#closed) return;
    const levels = [...this.#levels]
      .map(([peerId, volume]) => ({ peerId, volume }))
      .sort((a, b) => b.volume - a.volume);
    this.#apply(this.#forwarding.audioLevels(levels));
    if (levels.length === 0) this.#tellActiveSpeaker(null);
    this.#tellLevelsSoon();
  }

  /** The members hear the levels within the interval (at most 4 times a second). */
  #tellLevelsSoon(): void {
    if (this.#levelsTimer) return;
    const wait = Math.max(0, this.#levelsToldAt + RTC_LIMITS.audioLevelIntervalMs - performance.now());
    this.#levelsTimer = setTimeout(() => {
      this.#levelsTimer = null;
      this.#levelsToldAt = performance.now();
      if (!this.#closed) this.#tellLevels();
    }, wait);
    this.#levelsTimer.unref();
  }

  /** `peer` came or changed: the others are told with the next `peersChanged`. */
  #membershipChanged(peer: Peer): void {
    this.#membership.changed.set(peer.id, peer);
    this.#tellMembershipSoon();
  }

  #membershipLeft(peer: Peer): void {
    const { changed, left, untold, leftUntold } = this.#membership;
    if (changed.get(peer.id) === peer) changed.delete(peer.id);
    // Someone who came and went between two messages was never told of here.
    if (untold.delete(peer)) leftUntold.add(peer.id);
    else left.add(peer.id);
    this.#tellMembershipSoon();
  }

  /**
   * Tells the members at once when the last message is long enough ago, else when it is: at most
   * RTC_LIMITS.membershipPerSecond a second, each with everything since the last.
   */
  #tellMembershipSoon(): void {
    if (this.#membershipTimer || this.#closed) return;
    const gap = 1000 / RTC_LIMITS.membershipPerSecond;
    const wait = this.#membershipToldAt + gap - performance.now();
    if (wait <= 0) {
      // After the current request's reply and notifications (a join's reply comes first).
      this.#membershipTimer = setTimeout(() => this.#tellMembership(), 0);
    } else {
      this.#membershipTimer = setTimeout(() => this.#tellMembership(), wait);
    }
    this.#membershipTimer.unref();
  }

  #tellMembership(): void {
    this.#membershipTimer = null;
    if (this.#closed) return;
    const { changed, left, untold, leftUntold, remoteChanged, remoteLeft } = this.#membership;
    const peers = [...changed.values()].filter((peer) => peer.joined && !peer.closed);
    const localInfos = peers.map((peer) => peer.info);
    const localGone = [...left];
    const linksGone = [...localGone, ...leftUntold];
    const gone = [...localGone, ...remoteLeft];
    const infos = [...localInfos, ...remoteChanged.values()];
    changed.clear();
    left.clear();
    untold.clear();
    leftUntold.clear();
    remoteChanged.clear();
    remoteLeft.clear();
    // The API processes hear who is in the room as often as the members do, not on every join;
    // so do the room's parts on other media servers.
    this.#publishMembers();
    if (localInfos.length > 0 || linksGone.length > 0) {
      this.#options.links?.membersChanged(localInfos, linksGone);
    }
    if (infos.length === 0 && gone.length === 0) return;
    this.#membershipToldAt = performance.now();
    for (const member of this.joinedPeers()) {
      const others = infos.filter((info) => info.id !== member.id);
      if (others.length > 0 || gone.length > 0)
        void member.notify('peersChanged', { peers: others, left: gone });
    }
  }

  /** Tells the registry who is in the room, when that changed since it was last told. */
  #publishMembers(): void {
    const peerIds = this.memberIds();
    const told = peerIds.join();
    if (told === this.#publishedMembers) return;
    this.#publishedMembers = told;
    this.#options.onMembers(peerIds);
  }

  #broadcast<M extends keyof RtcNotifications>(method: M, data: RtcNotifications[M]): void {
    for (const peer of this.joinedPeers()) void peer.notify(method, data);
  }
}
