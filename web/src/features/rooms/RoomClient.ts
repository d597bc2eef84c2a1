/**
 * One connection to a room on its media server (protoo at the `mediaUrl` the API gave, with
 * the single-use room token): a mediasoup-client Device, a sending transport carrying the
 * microphone as one Opus producer (in-band FEC and DTX), a receiving transport with one
 * consumer per other member, each played by RoomAudio at its own volume. Notifications from the
 * server go through a table of handlers, one per name the protocol declares in RtcNotifications.
 *
 * A transport whose connection drops restarts ICE with new parameters from the server; one that
 * has not (re)connected within ROOM_TIMERS.transportDeadlineMs counts as lost. The room token is
 * good for one connection, so this class does not reconnect: when the signalling connection or a
 * transport is lost it says `disconnected`, and RoomSession joins again through the API.
 *
 * Getting in has a deadline (ROOM_TIMERS.connectDeadlineMs) for each of its steps (the socket
 * open, the capabilities, each transport, the join, the producer): a media server that takes the
 * connection and never answers, one that stops answering halfway, or a socket the browser
 * refuses to open (a Content-Security-Policy that does not name the server: Chromium then fires
 * `error` and never `close`), ends in a RoomConnectError instead of "Joining…" for ever; a busy
 * one that keeps answering, slowly, still lets the person in. Within the producer step each answer
 * (the transport's DTLS parameters taken, the producer made) starts the deadline again: on a
 * saturated machine the step as a whole took past 10 s while every part of it came back.
 */
import {
  ROOM_TIMERS,
  type RoomPermissions,
  type RtcMutedBy,
  type RtcNotifications,
  type RtcPeerInfo,
  type RtcPeersPage,
  type RtcRequests,
  type RtcServerRequests,
  type RtcStageRole,
} from '@voice/protocol';
import { Device, type types } from 'mediasoup-client';
import { Peer, WebSocketTransport } from 'protoo-client';
import { RoomAudio } from './RoomAudio.ts';
import { speaks } from './speaking.ts';

/** A member as this page shows them. */
export interface RoomMember extends RtcPeerInfo {
  /**
   * dBov of their audio level when they began speaking (above SPEAKING_DBOV), null when silent:
   * it changes only when they start or stop, so the room's people are not redrawn with every
   * sample (up to four a second) while someone talks.
   */
  volume: number | null;
}

/** Why a RoomClient's connection went (see RoomClientEvents.disconnected). */
export type RoomDisconnect = 'kicked' | 'call' | 'closed' | 'lost' | 'moved';

export interface RoomClientEvents {
  /** The members (not counting you) changed: joined, left, muted. */
  members(members: readonly RoomMember[]): void;
  activeSpeaker(peerId: string | null): void;
  /**
   * The connection is gone: `kicked`, `call` (you took a 1:1 call, one voice at a time),
   * `closed` (room deleted), `lost` (network, server), or `moved` (the server asked us to join
   * again: it is draining, or lost our part of the room).
   */
  disconnected(reason: RoomDisconnect): void;
  /** An admin or moderator muted you (you cannot unmute until they lift it: null). */
  mutedBy(by: RtcMutedBy | null): void;
  /** The admin named you a moderator, or unnamed you. */
  moderator(moderator: boolean): void;
  /** Who stands in for the absent admin (null: nobody, the admin is in). */
  actingAdmin(peerId: string | null): void;
  /**
   * Your place on a stage: at the join, and when you raise your hand, are invited to speak (your
   * voice starts) or are moved to the audience (it stops). Outside a stage: a speaker.
   */
  stage(role: RtcStageRole): void;
}

export interface RoomClientOptions {
  /** The media server's /rtc URL with roomId, peerId and token. */
  url: string;
  /** Your id (the peer id). */
  peerId: string;
  displayName: string;
  permissions: RoomPermissions;
  /** The microphone. */
  stream: MediaStream;
  /**
   * The room is a stage (as the API said): the sending transport waits for the join, which says
   * whether you may talk. Outside a stage it is made before, as mediasoup-demo does.
   */
  stage: boolean;
  /** TURN/STUN servers, as for 1:1 calls, so a browser that can only relay still joins. */
  rtcConfiguration: RTCConfiguration;
  events: RoomClientEvents;
}

/**
 * Getting into the room failed on the media server's side: `unreachable`, its `/rtc` never opened
 * (refused, closed, or blocked by the browser); `timeout`, it was not done within the deadline.
 */
export class RoomConnectError extends Error {
  /** `step`: for a timeout, the step of getting in that was not done in time (for the log). */
  constructor(
    readonly reason: 'unreachable' | 'timeout',
    readonly step?: JoinStep,
  ) {
    super(
      reason === 'unreachable'
        ? 'Could not open the media server'
        : `The media server did not let us in in time (${step ?? 'joining'})`,
    );
    this.name = 'RoomConnectError';
  }
}

/** The steps of getting in, each with its own deadline (see RoomClient.join). */
type JoinStep = 'socket' | 'capabilities' | 'send transport' | 'receive transport' | 'join' | 'producer';

/** The origin of `url`, or null when it is none (a CSP report may say just `inline`). */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

type Requests = { [N in keyof RtcRequests]: RtcRequests[N] };

/** Requests typed by the protocol's declaration (protoo-client's reply is `any`). */
function request<N extends keyof Requests>(
  peer: Peer,
  method: N,
  data: Requests[N]['data'],
): Promise<Requests[N]['reply']> {
  return peer.request(method, data) as Promise<Requests[N]['reply']>;
}

/** What the client does with each notification the server sends, by the protocol's names. */
type NotificationHandlers = { [M in keyof RtcNotifications]: (data: RtcNotifications[M]) => void };

function isNotification(method: string, handlers: NotificationHandlers): method is keyof RtcNotifications {
  return Object.hasOwn(handlers, method);
}

/** Nothing on this page follows it (a member's mute comes with `peerMuted`). */
const ignore = () => {};

/** How many ids of consumers closed before they were made are kept (see `#closedEarly`). */
const CLOSED_EARLY_KEPT = 256;

export class RoomClient {
  readonly #options: RoomClientOptions;
  readonly #peer: Peer;
  readonly #device = new Device();
  #sendTransport: types.Transport | null = null;
  /** The sending transport on its way or made (see `#sendTransportOnce`). */
  #sendTransportMade: Promise<types.Transport> | null = null;
  #recvTransport: types.Transport | null = null;
  #producer: types.Producer | null = null;
  /** Your voice being started (the send transport, the producer): one at a time. */
  #starting: Promise<void> | null = null;
  /** On a stage you may talk only as a speaker; outside one you always may. */
  #stageRole: RtcStageRole = { speaker: true, handRaised: false };
  /** Muted by you: a voice started later (invited to speak on a stage) starts muted too. */
  #muted = false;
  /** The transmit gate (push-to-talk, voice activity); open unless told otherwise. */
  #transmitting = true;
  readonly #members = new Map<string, RoomMember>();
  /** Per consumer id: what the receiving transport gets from the other members. */
  readonly #consumers = new Map<string, types.Consumer>();
  /**
   * Consumers the server closed while we were still making them (`consumerClosed` can overtake
   * the `newConsumer` it follows): dropped as soon as they are made, not played.
   */
  readonly #closedEarly = new Set<string>();
  readonly #audio = new RoomAudio();
  #deafened = false;
  /** Per transport not connected now: when it counts as lost (see #watchConnection). */
  readonly #deadlines = new Map<string, ReturnType<typeof setTimeout>>();
  #closed = false;
  /** While joining: a step of it is done, so the deadline starts again (see join). */
  #stepDone: (next: JoinStep) => void = () => {};
  /** While joining: part of the current step came back, so its deadline starts again. */
  #progress: () => void = () => {};

  constructor(options: RoomClientOptions) {
    this.#options = options;
    this.#peer = new Peer(new WebSocketTransport(options.url, { retry: { retries: 0 } }));
  }

  get members(): readonly RoomMember[] {
    return [...this.#members.values()];
  }

  /**
   * Connects, sets up both transports, joins and starts sending the microphone; a
   * RoomConnectError when the media server cannot be opened or has not let us in by the deadline.
   */
  async join(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let current: JoinStep = 'socket';
    const deadline = new Promise<never>((_, reject) => {
      const arm = (step: JoinStep) => {
        current = step;
        clearTimeout(timer);
        timer = setTimeout(
          () => reject(new RoomConnectError('timeout', step)),
          ROOM_TIMERS.connectDeadlineMs,
        );
      };
      arm(current);
      this.#stepDone = arm;
      this.#progress = () => arm(current);
    });
    try {
      await Promise.race([this.#join(), deadline]);
    } finally {
      this.#stepDone = () => {};
      this.#progress = () => {};
      clearTimeout(timer);
    }
  }

  async #join(): Promise<void> {
    const origin = new URL(this.#options.url).origin;
    let onViolation: ((event: SecurityPolicyViolationEvent) => void) | undefined;
    await new Promise<void>((resolve, reject) => {
      const unreachable = () => reject(new RoomConnectError('unreachable'));
      this.#peer.on('open', () => resolve());
      this.#peer.on('failed', unreachable);
      this.#peer.on('close', unreachable);
      // The page's policy was made before this media server was known: no need to wait.
      onViolation = (event) => {
        if (originOf(event.blockedURI) === origin) unreachable();
      };
      document.addEventListener('securitypolicyviolation', onViolation);
    }).finally(() => {
      if (onViolation) document.removeEventListener('securitypolicyviolation', onViolation);
    });
    this.#stepDone('capabilities');
    this.#peer.on('disconnected', () => this.#lost());
    this.#peer.on('close', () => this.#lost());
    this.#peer.on('notification', (notification) => this.#onNotification(notification));
    this.#peer.on('request', (serverRequest, accept, reject) => {
      if (serverRequest.method !== 'newConsumer') {
        reject(404, 'unknown method');
        return;
      }
      const data = serverRequest.data as RtcServerRequests['newConsumer'];
      // What the server closed for it and who speaks now come with it: applied first.
      for (const consumerId of data.closed ?? []) this.#dropConsumer(consumerId);
      if (data.levels) this.#notify('audioLevels', { levels: data.levels });
      this.#consume(data).then(
        () => accept(),
        (error: unknown) => reject(500, String(error)),
      );
    });

    const routerRtpCapabilities = (await request(
      this.#peer,
      'getRouterRtpCapabilities',
      {},
    )) as types.RtpCapabilities;
    await this.#device.load({ routerRtpCapabilities });
    // Outside a stage everyone talks: both transports before the join, as mediasoup-demo does.
    if (!this.#options.stage) {
      this.#stepDone('send transport');
      await this.#sendTransportOnce();
    }
    this.#stepDone('receive transport');
    this.#recvTransport = await this.#createTransport('recv');
    this.#stepDone('join');
    const { peers, next, you } = await request(this.#peer, 'join', {
      displayName: this.#options.displayName,
      device: { flag: 'browser', name: navigator.userAgent },
      rtpCapabilities: this.#device.rtpCapabilities,
    });
    this.#addMembers(peers);
    // A room past one page: the rest comes in the background (the voice does not wait for it).
    if (next !== null) void this.#readMembers(next);
    // An older media server says nothing of stages: everyone speaks there.
    this.#stageRole = { speaker: you?.speaker ?? true, handRaised: you?.handRaised ?? false };
    this.#options.events.stage(this.#stageRole);
    // The audience of a stage sends nothing: no sending transport until they are invited to
    // speak, or raise their hand (back after a reconnect with it raised).
    if (this.#stageRole.speaker) await this.#startVoice(true);
    else if (this.#stageRole.handRaised) this.#prepareToSpeak();
  }

  /** The sending transport, made once (a failed attempt may be made again). */
  #sendTransportOnce(): Promise<types.Transport> {
    this.#sendTransportMade ??= this.#createTransport('send').then(
      (transport) => {
        this.#sendTransport = transport;
        return transport;
      },
      (error: unknown) => {
        this.#sendTransportMade = null;
        throw error;
      },
    );
    return this.#sendTransportMade;
  }

  /**
   * A raised hand makes its sending transport ahead of an invitation (a second port of the
   * worker, which the server counts), so that once invited only the producer is left to make.
   */
  #prepareToSpeak(): void {
    if (this.#closed) return;
    this.#sendTransportOnce().catch((error: unknown) =>
      console.debug('Getting ready to speak failed; tried again when invited', error),
    );
  }

  /**
   * Sends the microphone: the sending transport (made once) and the producer. While joining,
   * each is a step with its own deadline.
   */
  #startVoice(joining = false): Promise<void> {
    this.#starting ??= (async () => {
      if (joining && !this.#sendTransport) this.#stepDone('send transport');
      const transport = await this.#sendTransportOnce();
      if (joining) this.#stepDone('producer');
      const track = this.#options.stream.getAudioTracks()[0];
      if (!track || this.#producer || this.#closed || !this.#stageRole.speaker) return;
      this.#producer = await transport.produce({
        track,
        codecOptions: { opusStereo: false, opusDtx: true, opusFec: true },
        stopTracks: false,
        // Muted sends nothing at all (the sender goes inactive, no renegotiation with the
        // server): no encoding in the page, no packets for the media server to drop.
        zeroRtpOnPause: true,
      });
      this.#applyGate();
      if (this.#muted) await this.setMuted(true);
    })().finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  /** Your place on a stage changed: invited, your voice starts; moved to the audience, it stops. */
  #stageChanged(role: RtcStageRole): void {
    this.#stageRole = role;
    if (role.speaker) {
      this.#startVoice().catch((error: unknown) => console.warn('Your voice could not be started', error));
    } else if (this.#producer) {
      // The server closed it already.
      this.#producer.close();
      this.#producer = null;
    } else if (role.handRaised) {
      this.#prepareToSpeak();
    }
    this.#options.events.stage(role);
  }

  /** On a stage, in the audience: raises or lowers your hand to ask to speak. */
  raiseHand(raised: boolean): Promise<unknown> {
    return request(this.#peer, 'raiseHand', { raised });
  }

  /** On a stage, admin or moderator: lets a raised hand (or yourself) speak. */
  inviteToSpeak(peerId: string): Promise<unknown> {
    return request(this.#peer, 'inviteToSpeak', { peerId });
  }

  /** On a stage: moves a speaker to the audience (an admin's or moderator's), or yourself. */
  moveToAudience(peerId: string): Promise<unknown> {
    return request(this.#peer, 'moveToAudience', { peerId });
  }

  /**
   * Push-to-talk or voice activity (VoiceGate): while closed the track sends silence, which
   * Opus DTX makes almost free, with no signalling, so opening is instant. Muting (the
   * producer paused) is separate and always wins.
   */
  setTransmitting(open: boolean): void {
    this.#transmitting = open;
    this.#applyGate();
  }

  #applyGate(): void {
    const producer = this.#producer;
    if (producer?.track && !producer.paused) producer.track.enabled = this.#transmitting;
  }

  /** Mutes or unmutes your microphone (the server tells the others). */
  async setMuted(muted: boolean): Promise<void> {
    this.#muted = muted;
    const producer = this.#producer;
    if (!producer) return;
    if (muted) producer.pause();
    else {
      producer.resume();
      this.#applyGate();
    }
    await request(this.#peer, muted ? 'pauseProducer' : 'resumeProducer', { producerId: producer.id });
  }

  /** Plays the others to the output `deviceId` ('' = the system default). */
  setOutput(deviceId: string): void {
    this.#audio.setOutput(deviceId);
  }

  /** Sends `track` in place of the microphone's (the voice settings changed its processing); mute holds. */
  async replaceTrack(track: MediaStreamTrack): Promise<void> {
    await this.#producer?.replaceTrack({ track });
  }

  /** Deafened, you hear nobody: every consumer is paused (no bandwidth spent on it). */
  async setDeafened(deafened: boolean): Promise<void> {
    this.#deafened = deafened;
    await Promise.all([
      // The others see it (a deafened icon on your tile).
      request(this.#peer, 'setDeafened', { deafened }),
      ...[...this.#consumers.values()].map(async (consumer) => {
        if (deafened) consumer.pause();
        else consumer.resume();
        await request(this.#peer, deafened ? 'pauseConsumer' : 'resumeConsumer', { consumerId: consumer.id });
      }),
    ]);
  }

  /** The WebRTC statistics of the two transports, for the connection's quality. */
  async connectionStats(): Promise<RTCStatsReport[]> {
    const transports = [this.#sendTransport, this.#recvTransport].filter((t) => t !== null && !t.closed);
    return Promise.all(transports.map((transport) => (transport as types.Transport).getStats()));
  }

  /** One member's volume, 0..2. */
  setVolume(peerId: string, volume: number): void {
    this.#audio.setVolume(peerId, volume);
  }

  /** Admin or moderator: mutes a member, who cannot unmute until `unmutePeer`. */
  mutePeer(peerId: string): Promise<unknown> {
    return request(this.#peer, 'mutePeer', { peerId });
  }

  /** Admin or moderator: lets a member they muted unmute again. */
  unmutePeer(peerId: string): Promise<unknown> {
    return request(this.#peer, 'unmutePeer', { peerId });
  }

  /** Admin or moderator: removes a member (who stays out for a while). */
  kickPeer(peerId: string): Promise<unknown> {
    return request(this.#peer, 'kickPeer', { peerId });
  }

  /** Leaves the room and lets everything go. Idempotent. */
  async leave(): Promise<void> {
    if (this.#closed) return;
    try {
      if (this.#peer.connected) await request(this.#peer, 'leave', {});
    } finally {
      this.close();
    }
  }

  /** Closes without telling the server (it notices the connection going). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#deadlines.values()) clearTimeout(timer);
    this.#deadlines.clear();
    for (const consumer of this.#consumers.values()) consumer.close();
    this.#consumers.clear();
    this.#audio.close();
    this.#producer?.close();
    this.#sendTransport?.close();
    this.#recvTransport?.close();
    this.#peer.close();
  }

  async #createTransport(direction: 'send' | 'recv'): Promise<types.Transport> {
    const info = await request(this.#peer, 'createWebRtcTransport', {
      producing: direction === 'send',
      consuming: direction === 'recv',
    });
    const { iceServers, iceTransportPolicy } = this.#options.rtcConfiguration;
    const parameters = {
      id: info.id,
      iceParameters: info.iceParameters as types.IceParameters,
      iceCandidates: info.iceCandidates as types.IceCandidate[],
      dtlsParameters: info.dtlsParameters as types.DtlsParameters,
      ...(iceServers ? { iceServers } : {}),
      ...(iceTransportPolicy ? { iceTransportPolicy } : {}),
    };
    const transport =
      direction === 'send'
        ? this.#device.createSendTransport(parameters)
        : this.#device.createRecvTransport(parameters);
    transport.on('connect', ({ dtlsParameters }, callback, errback) => {
      this.#progress();
      request(this.#peer, 'connectWebRtcTransport', { transportId: transport.id, dtlsParameters }).then(
        () => {
          this.#progress();
          callback();
        },
        errback,
      );
    });
    if (direction === 'send') {
      transport.on('produce', ({ kind, rtpParameters, appData }, callback, errback) => {
        if (kind !== 'audio') {
          errback(new Error('Rooms carry audio only'));
          return;
        }
        this.#progress();
        request(this.#peer, 'produce', { transportId: transport.id, kind, rtpParameters, appData }).then(
          ({ id }) => {
            this.#progress();
            callback({ id });
          },
          errback,
        );
      });
    }
    transport.on('connectionstatechange', (state) => this.#watchConnection(transport, state));
    return transport;
  }

  /**
   * Connected: nothing to watch. Connecting: it has until the deadline. Disconnected or failed:
   * ICE restarts at once (once per deadline), and the deadline runs.
   */
  #watchConnection(transport: types.Transport, state: RTCPeerConnectionState): void {
    if (this.#closed) return;
    const running = this.#deadlines.get(transport.id);
    if (state === 'connected' || state === 'closed' || state === 'new') {
      if (running !== undefined) clearTimeout(running);
      this.#deadlines.delete(transport.id);
      return;
    }
    if (running !== undefined) return;
    this.#deadlines.set(
      transport.id,
      setTimeout(() => {
        this.#deadlines.delete(transport.id);
        console.warn(`The room's ${transport.direction} transport did not connect in time: joining again`);
        this.#lost();
      }, ROOM_TIMERS.transportDeadlineMs),
    );
    if (state === 'disconnected' || state === 'failed') void this.#restartIce(transport);
  }

  /** A transport lost its path: new ICE parameters from the server, then the browser retries. */
  async #restartIce(transport: types.Transport): Promise<void> {
    if (this.#closed || !this.#peer.connected) return;
    try {
      const iceParameters = (await request(this.#peer, 'restartIce', {
        transportId: transport.id,
      })) as types.IceParameters;
      await transport.restartIce({ iceParameters });
    } catch (error) {
      console.warn('The room connection could not restart ICE', error);
    }
  }

  async #consume(data: RtcServerRequests['newConsumer']): Promise<void> {
    const transport = this.#recvTransport;
    if (!transport) throw new Error('No receiving transport yet');
    const consumer = await transport.consume({
      id: data.id,
      producerId: data.producerId,
      kind: data.kind,
      rtpParameters: data.rtpParameters as types.RtpParameters,
    });
    if (this.#closedEarly.delete(consumer.id)) {
      consumer.close();
      return;
    }
    this.#audio.play(consumer.id, data.peerId, consumer.track);
    this.#consumers.set(consumer.id, consumer);
    consumer.on('transportclose', () => this.#dropConsumer(consumer.id));
    if (this.#deafened) {
      consumer.pause();
      void request(this.#peer, 'pauseConsumer', { consumerId: consumer.id }).catch(() => {});
    }
  }

  #dropConsumer(consumerId: string): void {
    const consumer = this.#consumers.get(consumerId);
    if (!consumer) {
      // Not made yet, or never will be (a refused one): bounded, as the server's ids are.
      if (this.#closedEarly.size >= CLOSED_EARLY_KEPT) this.#closedEarly.clear();
      this.#closedEarly.add(consumerId);
      return;
    }
    this.#audio.stop(consumerId);
    consumer.close();
    this.#consumers.delete(consumerId);
  }

  /** Members who came or changed: added, or updated keeping their level. */
  #addMembers(peers: readonly RtcPeerInfo[]): void {
    for (const member of peers) {
      if (member.id === this.#options.peerId) continue;
      this.#members.set(member.id, { ...member, volume: this.#members.get(member.id)?.volume ?? null });
    }
    this.#emitMembers();
  }

  /** The member list's pages after the join reply's, from `from` on. */
  async #readMembers(from: number): Promise<void> {
    let next: number | null = from;
    while (next !== null && !this.#closed) {
      const page: RtcPeersPage = await request(this.#peer, 'getPeers', { from: next }).catch(() => ({
        peers: [],
        next: null,
      }));
      this.#addMembers(page.peers);
      next = page.next;
    }
  }

  readonly #notificationHandlers: NotificationHandlers = {
    peersChanged: ({ peers, left }) => {
      for (const peerId of left) this.#members.delete(peerId);
      this.#addMembers(peers);
    },
    consumerClosed: ({ consumerId }) => this.#dropConsumer(consumerId),
    consumerPaused: ignore,
    consumerResumed: ignore,
    peerMuted: ({ peerId, muted, mutedBy }) => {
      if (peerId === this.#options.peerId) {
        if (mutedBy && this.#producer && !this.#producer.paused) this.#producer.pause();
        this.#options.events.mutedBy(mutedBy);
        return;
      }
      const member = this.#members.get(peerId);
      if (member) {
        this.#members.set(peerId, { ...member, muted, mutedBy, volume: muted ? null : member.volume });
      }
      this.#emitMembers();
    },
    peerDeafened: ({ peerId, deafened }) => {
      const member = this.#members.get(peerId);
      if (!member) return;
      this.#members.set(peerId, { ...member, deafened });
      this.#emitMembers();
    },
    peerRole: ({ peerId, moderator }) => {
      if (peerId === this.#options.peerId) {
        this.#options.events.moderator(moderator);
        return;
      }
      const member = this.#members.get(peerId);
      if (member) this.#members.set(peerId, { ...member, moderator });
      this.#emitMembers();
    },
    actingAdmin: ({ peerId }) => this.#options.events.actingAdmin(peerId),
    stage: (role) => this.#stageChanged(role),
    activeSpeaker: ({ peerId }) => this.#options.events.activeSpeaker(peerId),
    audioLevels: ({ levels }) => {
      const heard = new Map(levels.map(({ peerId, volume }) => [peerId, volume]));
      let changed = false;
      for (const [id, member] of this.#members) {
        const volume = heard.get(id) ?? null;
        if (speaks(volume) === speaks(member.volume)) continue;
        this.#members.set(id, { ...member, volume });
        changed = true;
      }
      if (changed) this.#emitMembers();
    },
    kicked: () => this.#end('kicked'),
    inCall: () => this.#end('call'),
    roomClosed: () => this.#end('closed'),
    // Join again, with a fresh token: the server is draining (the API has placed the room
    // elsewhere) or lost our part of the room (a worker died; it is rebuilt).
    reconnect: () => this.#end('moved'),
  };

  /** protoo gives the data untyped: it is what the protocol declares for that name. */
  #onNotification({ method, data }: { method: string; data?: unknown }): void {
    if (!isNotification(method, this.#notificationHandlers)) return;
    this.#notify(method, data as RtcNotifications[typeof method]);
  }

  #notify<M extends keyof RtcNotifications>(method: M, data: RtcNotifications[M]): void {
    this.#notificationHandlers[method](data);
  }

  #lost(): void {
    this.#end('lost');
  }

  #end(reason: RoomDisconnect): void {
    if (this.#closed) return;
    this.close();
    this.#options.events.disconnected(reason);
  }

  #emitMembers(): void {
    this.#options.events.members(this.members);
  }
}
