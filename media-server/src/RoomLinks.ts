/**
 * A room across media servers: the parts of one room held by several media servers (new members
 * placed on another server when the room's was full) are linked over the bus (ROOM_LINKS_CHANNEL),
 * as edumeet's room server links the media nodes of one room.
 *
 * A media server that opens a part says `hello`; every other part answers with the address of a
 * PipeTransport of its own for the newcomer (`pipe`, SRTP-keyed: between hosts the voices cross
 * networks nobody vouched for), the newcomer connects its own to it and answers the same way, and
 * each side then sends the other its members (`members`) and, for every voice of a member it
 * holds, a consumer on its end of the pipe whose parameters the other side produces on its end
 * (`voice`), the same ids mediasoup's pipeToRouter keeps. From then on each side says what changes:
 * members coming, changing (mute, deafen, role) and leaving, voices added and closed (`voiceClosed`),
 * its part closing (`bye`). Every part sends only the voices of its own members: each pair of
 * parts has one pipe, and no voice crosses two.
 *
 * A part whose media server died says nothing: its server stops announcing itself (or announces
 * `gone`), and after MEDIA_ANNOUNCE.ttlMs its links are dropped here as if it had said `bye`; its
 * members, disconnected, join again wherever the API places them.
 */
import { type Bus, mediaAnnounceChannel, roomLinksChannel } from '@voice/bus';
import {
  MEDIA_ANNOUNCE,
  type MediaServerAnnouncement,
  type RoomLinkMessage,
  type RoomLinkPipe,
  type RtcPeerInfo,
} from '@voice/protocol';
import type { MediaConfig } from './config.ts';
import { webRtcListenIps } from './listenIps.ts';
import type { Room, RoomLinkHooks } from './Room.ts';
import type { Consumer, Logger, Producer, RtpParameters } from './types.ts';

type PipeTransport = Awaited<ReturnType<Room['router']['createPipeTransport']>>;

/** Options of RoomLinks.create(). */
export interface RoomLinksOptions {
  /** This media server's id, as in its announcements. */
  serverId: string;
  bus: Bus;
  config: Pick<MediaConfig, 'listenIp' | 'announcedIp'>;
  logger: Logger;
  /** The open room `roomId` here, if any. */
  room(roomId: string): Room | undefined;
  /** Every open room part here (said again to the other parts after a bus outage). */
  rooms(): Iterable<Room>;
}

/** One room's pipe to its part on another media server. */
interface Link {
  readonly serverId: string;
  readonly transport: PipeTransport;
  /** Connected to the other end: voices and members can go. */
  connected: boolean;
  /** The consumers sending our voices into the pipe, by producer id (null while being made). */
  readonly sending: Map<string, Consumer | null>;
  /** The voices from the other side, by producer id. */
  readonly receiving: Map<string, Producer>;
}

// How often links to media servers that stopped announcing themselves are looked for.
const SWEEP_MS = MEDIA_ANNOUNCE.intervalMs;

export class RoomLinks {
  readonly #options: RoomLinksOptions;
  /** Each room's links, by room id, then by the other media server's id. */
  readonly #links = new Map<string, Map<string, Promise<Link>>>();
  /** Who each room's part here, leading, last said is acting admin, by room id. */
  readonly #toldActing = new Map<string, string | null>();
  /**
   * When each other media server was last heard announcing itself, for dropping the silent
   * (restarted while the bus is down, when silence says nothing).
   */
  readonly #heardAt = new Map<string, number>();
  /** When each other media server was really last heard (a gap means messages were lost). */
  readonly #lastHeard = new Map<string, number>();
  readonly #unsubscribe: Array<() => Promise<void>> = [];
  #offRecovered: (() => void) | null = null;
  #sweep: NodeJS.Timeout | null = null;
  #closed = false;

  static async create(options: RoomLinksOptions): Promise<RoomLinks> {
    const links = new RoomLinks(options);
    links.#unsubscribe.push(
      await options.bus.subscribe(roomLinksChannel, (message) => links.#receive(message)),
      await options.bus.subscribe(mediaAnnounceChannel, (announcement) => links.#announced(announcement)),
    );
    links.#sweep = setInterval(() => links.#dropSilent(), SWEEP_MS);
    links.#sweep.unref();
    links.#offRecovered = options.bus.onRecovered(() => links.#resync());
    return links;
  }

  private constructor(options: RoomLinksOptions) {
    this.#options = options;
  }

  /** What room `roomId` tells its other parts through these links. */
  hooksFor(roomId: string): RoomLinkHooks {
    return {
      voiceAdded: (peerId, producer) => {
        for (const pending of this.#links.get(roomId)?.values() ?? []) {
          pending
            .then((link) => (link.connected ? this.#sendVoice(roomId, link, peerId, producer) : undefined))
            .catch((error: Error) => {
              this.#options.logger.warn(`room ${roomId}: a voice not piped: ${error.message}`);
            });
        }
      },
      membersChanged: (peers, left) => {
        if ((this.#links.get(roomId)?.size ?? 0) === 0) return;
        this.#publish({ type: 'members', roomId, from: this.#options.serverId, peers, left });
      },
      leads: () => this.#leaderOf(roomId) === this.#options.serverId,
      selectionChanged: (voices) => {
        if ((this.#links.get(roomId)?.size ?? 0) === 0) return;
        this.#publish({ type: 'selection', roomId, from: this.#options.serverId, voices: [...voices] });
      },
      actingAdminChanged: (peerId) => {
        if ((this.#links.get(roomId)?.size ?? 0) === 0) return;
        if (this.#toldActing.has(roomId) && this.#toldActing.get(roomId) === peerId) return;
        this.#toldActing.set(roomId, peerId);
        this.#publish({ type: 'actingAdmin', roomId, from: this.#options.serverId, peerId });
      },
      moderate: (serverId, peerId, action, by) => {
        this.#publish({
          type: 'moderate',
          roomId,
          from: this.#options.serverId,
          to: serverId,
          peerId,
          action,
          by,
        });
      },
    };
  }

  /** A part of `room` opened here: the parts elsewhere, if any, link to it. */
  opened(room: Room): void {
    this.#publish({ type: 'hello', roomId: room.id, from: this.#options.serverId });
  }

  /** The part of `roomId` here closed: the others hear it, and its pipes go (with its router). */
  closed(roomId: string): void {
    const links = this.#links.get(roomId);
    this.#links.delete(roomId);
    this.#toldActing.delete(roomId);
    // Said even with no link yet: a part elsewhere may be making one.
    this.#publish({ type: 'bye', roomId, from: this.#options.serverId });
    for (const pending of links?.values() ?? []) {
      void pending.then((link) => link.transport.close()).catch(() => {});
    }
  }

  /** The media servers `roomId`'s part here is linked to (tests, metrics). */
  linkedServers(roomId: string): string[] {
    return [...(this.#links.get(roomId)?.keys() ?? [])];
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sweep) clearInterval(this.#sweep);
    this.#offRecovered?.();
    await Promise.all(this.#unsubscribe.map((unsubscribe) => unsubscribe()));
  }

  #receive(message: RoomLinkMessage): void {
    const me = this.#options.serverId;
    if (this.#closed || message.from === me || ('to' in message && message.to !== me)) return;
    const room = this.#options.room(message.roomId);
    if (!room || room.closed) return;
    this.#heardAt.set(message.from, Date.now());
    const failed = (error: Error) =>
      this.#options.logger.warn(
        `room ${message.roomId}: link with media server ${message.from} (${message.type}) failed: ${error.message}`,
      );
    switch (message.type) {
      case 'hello':
        // A new part there: whatever linked us to an earlier one is over.
        if (this.#links.get(room.id)?.has(message.from)) this.#drop(room.id, message.from);
        this.#link(room, message.from).catch(failed);
        return;
      case 'pipe':
        this.#connect(room, message.from, message.pipe).catch(failed);
        return;
      case 'members':
        room.remoteMembers(message.from, message.peers, message.left, message.all === true);
        if (message.ask) this.#answer(room, message.from).catch(failed);
        return;
      case 'voice':
        this.#receiveVoice(room, message).catch(failed);
        return;
      case 'selection':
        if (message.from === this.#leaderOf(room.id)) room.followSelection(message.voices);
        return;
      case 'actingAdmin':
        if (message.from === this.#leaderOf(room.id)) room.setActingAdmin(message.peerId);
        return;
      case 'moderate':
        room.moderatedElsewhere(message.by, message.peerId, message.action).catch(failed);
        return;
      case 'voiceClosed':
        void this.#links
          .get(room.id)
          ?.get(message.from)
          ?.then((link) => link.receiving.get(message.producerId)?.close());
        return;
      case 'bye':
        this.#drop(room.id, message.from);
        return;
    }
  }

  /** The link of `room` with `serverId`, made (and its address sent there) if there is none. */
  #link(room: Room, serverId: string): Promise<Link> {
    let links = this.#links.get(room.id);
    if (!links) {
      links = new Map();
      this.#links.set(room.id, links);
    }
    const known = links.get(serverId);
    if (known) return known;
    const making = this.#makeLink(room, serverId);
    links.set(serverId, making);
    making.catch(() => {
      if (this.#links.get(room.id)?.get(serverId) === making) this.#links.get(room.id)?.delete(serverId);
    });
    return making;
  }

  async #makeLink(room: Room, serverId: string): Promise<Link> {
    const [listenIp] = webRtcListenIps(this.#options.config);
    const transport = await room.router.createPipeTransport({
      listenIp: listenIp ?? '127.0.0.1',
      enableSrtp: true,
      enableSctp: false,
    });
    const link: Link = { serverId, transport, connected: false, sending: new Map(), receiving: new Map() };
    const srtp = transport.srtpParameters;
    if (!srtp) throw new Error('the pipe has no SRTP parameters');
    const pipe: RoomLinkPipe = {
      ip: transport.tuple.localIp,
      port: transport.tuple.localPort,
      srtp: { cryptoSuite: srtp.cryptoSuite, keyBase64: srtp.keyBase64 },
    };
    this.#publish({ type: 'pipe', roomId: room.id, from: this.#options.serverId, to: serverId, pipe });
    return link;
  }

  /** The other side's pipe is at `pipe`: ours connects to it, then sends our members and voices. */
  async #connect(room: Room, serverId: string, pipe: RoomLinkPipe): Promise<void> {
    const link = await this.#link(room, serverId);
    if (link.connected || link.transport.closed) return;
    link.connected = true;
    await link.transport.connect({
      ip: pipe.ip,
      port: pipe.port,
      srtpParameters: {
        cryptoSuite: pipe.srtp.cryptoSuite as 'AES_CM_128_HMAC_SHA1_80',
        keyBase64: pipe.srtp.keyBase64,
      },
    });
    this.#options.logger.info(`room ${room.id}: linked with its part on media server ${serverId}`);
    await this.#sendState(room, link);
    this.#leadershipChanged(room);
  }

  /**
   * Tells the part at the other end of `link` everything about this part: all its members, and
   * each of their voices (one already in the pipe is announced again; the other end ignores a
   * voice it has). `ask`: and asks for all of the other's (after a bus outage).
   */
  async #sendState(room: Room, link: Link, ask = false): Promise<void> {
    const peers: RtcPeerInfo[] = room.localMembers();
    this.#publish({
      type: 'members',
      roomId: room.id,
      from: this.#options.serverId,
      peers,
      left: [],
      all: true,
      ...(ask ? { ask: true as const } : {}),
    });
    for (const { peerId, producer } of room.localVoices()) {
      const consumer = link.sending.get(producer.id);
      if (consumer) this.#announceVoice(room.id, link, peerId, consumer);
      else await this.#sendVoice(room.id, link, peerId, producer);
    }
  }

  /**
   * The bus is back after an outage (or `serverId` is heard again after one on its side):
   * whatever went out meanwhile was lost (members who came or
   * left, voices piped, the selection). The pipes themselves never needed the bus, so each linked
   * part is told this part's whole state again, and asked for its own (`ask`): what it said
   * meanwhile was lost as well, and its own "said again" may have gone out while this server
   * could not hear yet (a media server's two Redis connections come back one after the other). A
   * part with no link says hello, for a part opened elsewhere meanwhile. The others get a full
   * announcement period before counting as gone.
   */
  #resync(serverId?: string): void {
    if (this.#closed) return;
    if (serverId === undefined) this.#restartSilenceClocks();
    for (const room of this.#options.rooms()) {
      if (room.closed) continue;
      const links = this.#links.get(room.id);
      if (!links || links.size === 0) {
        this.opened(room);
        continue;
      }
      if (serverId !== undefined && !links.has(serverId)) continue;
      for (const [linked, pending] of links) {
        if (serverId !== undefined && linked !== serverId) continue;
        pending
          .then((link) => (link.connected ? this.#sendState(room, link, true) : undefined))
          .catch((error: Error) =>
            this.#options.logger.warn(`room ${room.id}: not said again: ${error.message}`),
          );
      }
      this.#leadershipChanged(room);
    }
    this.#options.logger.info(
      `${serverId === undefined ? 'the bus is back' : `media server ${serverId} heard again`}: room parts told their state again`,
    );
  }

  /**
   * The part that chooses the voices for the whole room (loudest-K once per room): the one on
   * the media server with the lowest id among this part and those it is linked to.
   */
  #leaderOf(roomId: string): string {
    let leader = this.#options.serverId;
    for (const serverId of this.#links.get(roomId)?.keys() ?? []) if (serverId < leader) leader = serverId;
    return leader;
  }

  /** The parts changed: a part that leads now chooses here and says what it forwards. */
  #leadershipChanged(room: Room): void {
    if (this.#leaderOf(room.id) !== this.#options.serverId) return;
    // Said again, for the part that just linked.
    this.#toldActing.delete(room.id);
    room.followSelection(null);
  }

  /**
   * The part on `serverId` said all again after a bus outage and asks for ours: it is told this
   * part's whole state, and, where this part leads, what the room forwards and who acts as admin.
   * Nothing without a connected link with it (a stranger's ask makes nothing happen).
   */
  async #answer(room: Room, serverId: string): Promise<void> {
    const link = await this.#links.get(room.id)?.get(serverId);
    if (!link?.connected || room.closed) return;
    await this.#sendState(room, link);
    this.#leadershipChanged(room);
  }

  /** Sends `producer` (a member's voice here) into the pipe of `link`. */
  async #sendVoice(roomId: string, link: Link, peerId: string, producer: Producer): Promise<void> {
    if (link.sending.has(producer.id) || producer.closed || link.transport.closed) return;
    link.sending.set(producer.id, null);
    let consumer: Consumer;
    try {
      consumer = await link.transport.consume({ producerId: producer.id });
    } catch (error) {
      link.sending.delete(producer.id);
      throw error;
    }
    link.sending.set(producer.id, consumer);
    const gone = () => {
      if (link.sending.get(producer.id) !== consumer) return;
      link.sending.delete(producer.id);
      this.#publish({ type: 'voiceClosed', roomId, from: this.#options.serverId, producerId: producer.id });
    };
    consumer.observer.once('close', gone);
    this.#announceVoice(roomId, link, peerId, consumer);
  }

  /** Tells the other end of `link` to produce the voice `consumer` sends into the pipe. */
  #announceVoice(roomId: string, link: Link, peerId: string, consumer: Consumer): void {
    this.#publish({
      type: 'voice',
      roomId,
      from: this.#options.serverId,
      to: link.serverId,
      peerId,
      producerId: consumer.producerId,
      rtpParameters: consumer.rtpParameters as unknown as Record<string, unknown>,
    });
  }

  /** A voice from the other side: produced on our end of the pipe, then the room's to forward. */
  async #receiveVoice(room: Room, message: Extract<RoomLinkMessage, { type: 'voice' }>): Promise<void> {
    const link = await this.#links.get(room.id)?.get(message.from);
    if (!link || link.transport.closed || link.receiving.has(message.producerId)) return;
    const producer = await link.transport.produce({
      id: message.producerId,
      kind: 'audio',
      rtpParameters: message.rtpParameters as unknown as RtpParameters,
      appData: { peerId: message.peerId },
    });
    link.receiving.set(producer.id, producer);
    producer.observer.once('close', () => link.receiving.delete(producer.id));
    await room.addRemoteVoice(message.from, message.peerId, producer);
  }

  /** The part of `roomId` on `serverId` is gone: its pipe closes, its members leave the room here. */
  #drop(roomId: string, serverId: string): void {
    const pending = this.#links.get(roomId)?.get(serverId);
    this.#links.get(roomId)?.delete(serverId);
    const room = this.#options.room(roomId);
    room?.forgetPart(serverId);
    if (room && !room.closed) this.#leadershipChanged(room);
    void pending?.then((link) => link.transport.close()).catch(() => {});
  }

  #announced(announcement: MediaServerAnnouncement): void {
    const { id } = announcement;
    if (id === this.#options.serverId) return;
    if (announcement.gone) {
      this.#heardAt.delete(id);
      this.#lastHeard.delete(id);
      this.#dropServer(id);
      return;
    }
    const now = Date.now();
    const last = this.#lastHeard.get(id);
    this.#heardAt.set(id, now);
    this.#lastHeard.set(id, now);
    // Heard again after a gap (a bus outage, on either side): what we said meanwhile may never
    // have reached it. Whichever side's subscription came back last, this runs once both hear.
    // So does hearing for the first time a server a room is linked with: linked just before an
    // outage, it may have missed all we said since (our "bus is back" can beat its subscription).
    const linked = last === undefined && [...this.#links.values()].some((links) => links.has(id));
    if (linked || (last !== undefined && now - last > 2 * MEDIA_ANNOUNCE.intervalMs)) this.#resync(id);
  }

  /** Drops the links to media servers not heard from for MEDIA_ANNOUNCE.ttlMs (they died). */
  #dropSilent(): void {
    // While the bus is down, the others' silence says nothing of them: their clocks start again.
    if (!this.#options.bus.available) {
      this.#restartSilenceClocks();
      return;
    }
    const before = Date.now() - MEDIA_ANNOUNCE.ttlMs;
    for (const links of this.#links.values()) {
      for (const serverId of links.keys()) {
        if ((this.#heardAt.get(serverId) ?? 0) < before) this.#dropServer(serverId);
      }
    }
    // Media servers long gone (each start is a new id) are forgotten.
    for (const [serverId, at] of this.#heardAt) {
      if (at >= before) continue;
      this.#heardAt.delete(serverId);
      this.#lastHeard.delete(serverId);
    }
  }

  /** Counts every known media server as heard just now. */
  #restartSilenceClocks(): void {
    const now = Date.now();
    for (const serverId of this.#heardAt.keys()) this.#heardAt.set(serverId, now);
  }

  #dropServer(serverId: string): void {
    for (const [roomId, links] of this.#links) {
      if (!links.has(serverId)) continue;
      this.#options.logger.warn(`room ${roomId}: media server ${serverId} is gone; its part's members left`);
      this.#drop(roomId, serverId);
    }
  }

  #publish(message: RoomLinkMessage): void {
    this.#options.bus.publish(roomLinksChannel, message).catch((error: Error) => {
      this.#options.logger.warn(`room ${message.roomId}: could not tell its other parts: ${error.message}`);
    });
  }
}
