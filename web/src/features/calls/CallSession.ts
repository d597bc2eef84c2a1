/**
 * Everything a tab needs for one-to-one calls while someone is signed in: the call state
 * (CallController) joined to the media. It asks for the microphone and the TURN
 * configuration before a call is placed or accepted, builds the caller's CallPeer when the
 * call is placed (its offer goes out while the call rings) and the callee's while the call
 * rings (it prepares its answer to that offer, which goes out with accept-call), routes the
 * relayed offer, answer and candidates to it (holding those that arrive before it exists),
 * plays the other party's voice, mutes, and lets everything go when the call is over.
 * `dispose()` is logout and page unload. The microphone and speaker follow the ones chosen in
 * this browser (audioDevices.ts), switched live during a call.
 */
import type { CallIceCandidate } from '@voice/protocol';
import { audioDeviceChoices, outputToUse, subscribeAudioDevices } from '../../media/audioDevices.ts';
import { RemoteAudio } from '../../media/audioOutput.ts';
import { LevelMeter } from '../../media/levelMeter.ts';
import type { MicrophoneEvent, MicrophoneManager, MicrophoneWarning } from '../../media/MicrophoneManager.ts';
import { MicrophonePipeline } from '../../media/MicrophonePipeline.ts';
import type { TurnCredentials } from '../../media/turnCredentials.ts';
import { CallController, type CallControllerOptions, type CallSocket } from './CallController.ts';
import { CallPeer, type CallPeerOptions } from './CallPeer.ts';
import { type CallState, hasCall } from './callState.ts';

export interface CallSessionOptions {
  socket: CallSocket;
  microphone: MicrophoneManager;
  turn: Pick<TurnCredentials, 'getRtcConfiguration'>;
  ringtone: CallControllerOptions['ringtone'];
  notification: CallControllerOptions['notification'];
  createPeerConnection?: (configuration: RTCConfiguration) => RTCPeerConnection;
  log?: (message: string, error: unknown) => void;
}

type Signal =
  | { kind: 'offer'; sdp: string }
  | { kind: 'answer'; sdp: string }
  | { kind: 'candidate'; candidate: CallIceCandidate };

/** A ringing call's peer (once the configuration is there) and the signals that came before it. */
interface Warm {
  callId: string;
  peer: CallPeer | null;
  queued: Signal[];
}

/** What the view shows besides the call state. */
export interface CallMediaState {
  muted: boolean;
  microphoneWarning: MicrophoneWarning | null;
  /** The other party muted their microphone (told over the app socket, `call-muted`). */
  peerMuted: boolean;
}

export class CallSession {
  readonly controller: CallController;
  readonly #socket: CallSocket;
  readonly #microphone: MicrophoneManager;
  readonly #turn: CallSessionOptions['turn'];
  readonly #createPeerConnection: CallSessionOptions['createPeerConnection'];
  readonly #log: (message: string, error: unknown) => void;
  readonly #audio = new RemoteAudio();
  readonly #unsubscribe: (() => void)[];
  /** The configuration fetched while the microphone was asked for. */
  #configuration: Promise<RTCConfiguration> | null = null;
  /** The microphone as sent (through noise suppression when the settings say so). */
  #stream: MediaStream | null = null;
  readonly #pipeline = new MicrophonePipeline({ swap: (stream) => this.#swapMicrophone(stream) });
  /** The capture asked for this call: the stream, or null if it could not be opened. */
  #opening: Promise<MediaStream | null> | null = null;
  /** The call the peer belongs to (set before the peer exists: its creation waits). */
  #peerCallId: string | null = null;
  #peer: CallPeer | null = null;
  /**
   * The callee's peer, made while the call rings: it prepares its answer to the offer that
   * comes meanwhile, and becomes the call's peer when this tab accepts.
   */
  #warm: Warm | null = null;
  /** Signals of #peerCallId that came before its peer. */
  #queued: Signal[] = [];
  #media: CallMediaState = { muted: false, microphoneWarning: null, peerMuted: false };
  /** The mute last told to the other party, and for which call. */
  #toldMuted: { callId: string; muted: boolean } | null = null;
  readonly #mediaListeners = new Set<(media: CallMediaState) => void>();
  readonly #levelListeners = new Set<(level: number) => void>();
  #meter: LevelMeter | null = null;
  #transmitting = true;
  #disposed = false;
  /** The device choices last applied, to tell which one changed. */
  #devices = audioDeviceChoices();

  constructor(options: CallSessionOptions) {
    this.#socket = options.socket;
    this.#microphone = options.microphone;
    this.#turn = options.turn;
    this.#createPeerConnection = options.createPeerConnection;
    this.#log = options.log ?? ((message, error) => console.warn(message, error));
    this.controller = new CallController({
      socket: options.socket,
      ensureMicrophone: (purpose) => this.#prepare(purpose),
      ringtone: options.ringtone,
      notification: options.notification,
      acceptance: {
        answer: (callId) => this.#peerOf(callId)?.accept() ?? Promise.resolve(null),
        accepted: (callId) => this.#peerOf(callId)?.accepted(),
      },
      log: this.#log,
    });
    const socket = options.socket;
    this.#unsubscribe = [
      this.controller.subscribe((state) => this.#sync(state)),
      socket.on('webrtc-offer', ({ callId, sdp }) => this.#signal(callId, { kind: 'offer', sdp })),
      socket.on('webrtc-answer', ({ callId, sdp }) => this.#signal(callId, { kind: 'answer', sdp })),
      socket.on('webrtc-ice-candidate', ({ callId, candidate }) =>
        this.#signal(callId, { kind: 'candidate', candidate }),
      ),
      this.#microphone.onEvent((event) => this.#onMicrophone(event)),
      socket.on('call-muted', ({ callId, muted }) => {
        if (this.controller.state.active?.callId === callId) this.#setMedia({ peerMuted: muted });
      }),
      subscribeAudioDevices(() => this.#devicesChanged()),
    ];
    void this.#applyOutput();
  }

  get media(): CallMediaState {
    return this.#media;
  }

  onMediaChange(listener: (media: CallMediaState) => void): () => void {
    this.#mediaListeners.add(listener);
    return () => this.#mediaListeners.delete(listener);
  }

  /** The level of your own voice (0..1) while a call is active. */
  onLocalLevel(listener: (level: number) => void): () => void {
    this.#levelListeners.add(listener);
    return () => this.#levelListeners.delete(listener);
  }

  /** The active call's WebRTC statistics; none without a call. */
  async connectionStats(): Promise<RTCStatsReport[]> {
    return this.#peer ? [await this.#peer.stats()] : [];
  }

  /** Push-to-talk or voice activity: whether the microphone is sent now (see VoiceGate). */
  setTransmitting(open: boolean): void {
    this.#transmitting = open;
    this.#peer?.setTransmitting(open);
  }

  setMuted(muted: boolean): void {
    this.#peer?.setMuted(muted);
    for (const track of this.#stream?.getAudioTracks() ?? []) track.enabled = !muted;
    this.#setMedia({ muted });
    this.#tellMuted();
  }

  /** Logout or page unload: ends the call (see CallController.dispose) and lets the media go. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.controller.dispose();
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#releaseCall();
    this.#pipeline.dispose();
    this.#mediaListeners.clear();
    this.#levelListeners.clear();
  }

  /**
   * Before placing or accepting: the microphone and the ICE servers. A caller's microphone is
   * open before the call rings. A callee who already gave permission answers while the capture
   * opens (the connection waits for it); otherwise the capture, and the browser's question,
   * come first.
   */
  async #prepare(purpose: 'place' | 'accept'): Promise<boolean> {
    this.#configuration ??= this.#turn.getRtcConfiguration();
    const opening = this.#openMicrophone();
    if (purpose === 'accept' && (await this.#microphone.isPermissionGranted())) return true;
    return (await opening) !== null;
  }

  #openMicrophone(): Promise<MediaStream | null> {
    const opening = this.#microphone
      .getStream('call')
      .then((capture) => this.#pipeline.send(capture))
      .then(
        (stream) => {
          if (this.#opening !== opening) return null; // released meanwhile
          this.#stream = stream;
          for (const track of stream.getAudioTracks()) track.enabled = !this.#media.muted;
          return stream;
        },
        (error: unknown) => {
          this.#log('The microphone could not be opened for the call', error);
          return null;
        },
      );
    this.#opening = opening;
    return opening;
  }

  /**
   * Tells the other party whether you are muted, once the call is up and after each change
   * (a mute made while it rang is told when it connects). Only answered calls carry it.
   */
  #tellMuted(): void {
    const active = this.controller.state.active;
    if (active?.phase !== 'connected') return;
    const { muted } = this.#media;
    const told = this.#toldMuted;
    if (told?.callId === active.callId ? told.muted === muted : !muted) return;
    this.#toldMuted = { callId: active.callId, muted };
    this.#socket
      .request('call-muted', { callId: active.callId, muted })
      .catch((error: unknown) => this.#log('Telling the other party of the mute failed', error));
  }

  #sync(state: CallState): void {
    const active = state.active;
    const ringing = !active && state.incoming ? state.incoming.callId : null;
    if (ringing !== null) this.#warmUp(ringing);
    else if (this.#warm && this.#warm.callId !== active?.callId) this.#coolDown();
    if (active && active.phase !== 'ended') {
      if (this.#peerCallId !== active.callId) void this.#createPeer(active.callId, active.isInitiator);
      this.#tellMuted();
      return;
    }
    // The call ended (its cleanup may still show it): stop sending and playing now.
    if (this.#peerCallId !== null) this.#closePeer();
    if (!hasCall(state)) this.#releaseCall();
  }

  /** Makes the ringing call's peer ahead of Accept (see #warm). */
  #warmUp(callId: string): void {
    if (this.#warm?.callId === callId || this.#disposed) return;
    this.#coolDown();
    const warm: Warm = { callId, peer: null, queued: [] };
    this.#warm = warm;
    this.#configuration ??= this.#turn.getRtcConfiguration();
    void this.#configuration.then((configuration) => {
      if (this.#warm !== warm) return;
      try {
        warm.peer = this.#newPeer(callId, { isInitiator: false, ringing: true, configuration, stream: null });
      } catch (error) {
        this.#log('The connection for the ringing call could not be made', error);
        return;
      }
      for (const signal of warm.queued.splice(0)) this.#deliver(warm.peer, signal);
    });
  }

  /** The ringing call is gone without being answered here: its peer too. */
  #coolDown(): void {
    this.#warm?.peer?.close();
    this.#warm = null;
  }

  /** The peer of `callId`: the call's, or the one made while it rang. */
  #peerOf(callId: string): CallPeer | null {
    if (this.#peerCallId === callId && this.#peer) return this.#peer;
    return this.#warm?.callId === callId ? this.#warm.peer : null;
  }

  #newPeer(
    callId: string,
    options: Pick<CallPeerOptions, 'isInitiator' | 'ringing' | 'configuration' | 'stream'>,
  ): CallPeer {
    const send = <N extends 'webrtc-offer' | 'webrtc-answer'>(method: N, sdp: string) =>
      this.#socket.request(method, { callId, sdp });
    return new CallPeer({
      ...options,
      signals: {
        offer: (sdp) => send('webrtc-offer', sdp),
        answer: (sdp) => send('webrtc-answer', sdp),
        candidate: (candidate) => this.#socket.request('webrtc-ice-candidate', { callId, candidate }),
      },
      events: {
        connected: () => {
          this.controller.peerConnected(callId);
          // Started once the audio flows: making its AudioContext earlier holds up the negotiation.
          if (this.#peerCallId === callId && this.#stream) this.#startMeter(this.#stream);
        },
        connection: (connection) => this.controller.connectionChanged(callId, connection),
        failed: (reason) => this.controller.peerFailed(callId, reason),
        remoteStream: (remote) => this.#audio.play(remote),
      },
      createPeerConnection: this.#createPeerConnection,
      log: this.#log,
    });
  }

  async #createPeer(callId: string, isInitiator: boolean): Promise<void> {
    this.#closePeer();
    this.#peerCallId = callId;
    const opening = this.#opening ?? Promise.resolve(this.#stream);
    const warm = this.#warm?.callId === callId ? this.#warm : null;
    if (warm) {
      this.#warm = null;
      this.#queued = warm.queued;
    }
    if (warm?.peer) {
      // The callee's peer made while ringing, with the offer (or it answers it when it comes);
      // the microphone joins it.
      this.#adopt(callId, warm.peer, null, opening);
      return;
    }
    // The caller's microphone is open before the call rings; a callee's may still be opening,
    // and the answer does not wait for it (the microphone joins the call when it is there).
    const [stream, configuration] = await Promise.all([
      isInitiator ? opening : this.#stream,
      this.#configuration ?? this.#turn.getRtcConfiguration(),
    ]);
    if (this.#peerCallId !== callId || this.#disposed) return;
    if (isInitiator && !stream) {
      this.controller.peerFailed(callId, 'webrtc-failed');
      return;
    }
    this.#adopt(callId, this.#newPeer(callId, { isInitiator, configuration, stream }), stream, opening);
    // The caller offers at once: the server hands it to the ringing tabs.
    this.#peer?.start();
  }

  /**
   * `peer` becomes the call's: muted as the call is, given the signals that waited, and the
   * microphone when it was made without (`stream` null).
   */
  #adopt(
    callId: string,
    peer: CallPeer,
    stream: MediaStream | null,
    opening: Promise<MediaStream | null>,
  ): void {
    this.#peer = peer;
    peer.setTransmitting(this.#transmitting);
    peer.setMuted(this.#media.muted);
    if (!stream) void this.#joinMicrophone(callId, opening);
    for (const signal of this.#queued.splice(0)) this.#deliver(peer, signal);
  }

  /** A callee's microphone, opened after the call's connection was made, goes on the call. */
  async #joinMicrophone(callId: string, opening: Promise<MediaStream | null>): Promise<void> {
    const stream = await opening;
    const peer = this.#peer;
    if (this.#peerCallId !== callId || !peer) return;
    const track = stream?.getAudioTracks()[0];
    if (!track) {
      this.controller.peerFailed(callId, 'webrtc-failed');
      return;
    }
    await peer.replaceTrack(track).catch((error: unknown) => {
      this.#log('The microphone could not join the call', error);
      this.controller.peerFailed(callId, 'webrtc-failed');
    });
  }

  #signal(callId: string, signal: Signal): void {
    const warm = this.#warm;
    if (warm?.callId === callId) {
      if (warm.peer) this.#deliver(warm.peer, signal);
      else warm.queued.push(signal);
      return;
    }
    if (callId !== this.#peerCallId) return; // not our call (or a late one)
    if (this.#peer) this.#deliver(this.#peer, signal);
    else this.#queued.push(signal);
  }

  #deliver(peer: CallPeer, signal: Signal): void {
    if (signal.kind === 'offer') void peer.handleOffer(signal.sdp);
    else if (signal.kind === 'answer') void peer.handleAnswer(signal.sdp);
    else void peer.handleCandidate(signal.candidate);
  }

  /** The person chose another microphone or speaker in the voice settings. */
  #devicesChanged(): void {
    const previous = this.#devices;
    const now = audioDeviceChoices();
    this.#devices = now;
    if (now.input !== previous.input && this.#stream) {
      this.#microphone
        .switchInput()
        .catch((error: unknown) => this.#log('The chosen microphone could not be opened', error));
    }
    if (now.output !== previous.output) void this.#applyOutput();
  }

  /** The other party plays to the chosen speaker (the default when it is gone). */
  async #applyOutput(): Promise<void> {
    const deviceId = await outputToUse();
    await this.#audio
      .setOutput(deviceId)
      .catch((error: unknown) => this.#log('Could not switch the audio output', error));
  }

  #onMicrophone(event: MicrophoneEvent): void {
    // Another microphone chosen, also while a placed call rings: it goes through the processing.
    if (event.type === 'switched') {
      if (!this.#stream) return;
      void this.#pipeline
        .send(event.stream)
        .then((stream) => this.#swapMicrophone(stream))
        .catch((error: unknown) => this.#log('The chosen microphone could not be sent', error));
      return;
    }
    if (!this.#peerCallId) return;
    switch (event.type) {
      case 'permission-revoked':
        this.#setMedia({ microphoneWarning: 'permission-lost' });
        break;
      case 'track-ended':
        this.#setMedia({ microphoneWarning: 'device-lost' });
        break;
      case 'recovery-failed':
        this.#setMedia({ microphoneWarning: 'not-working' });
        break;
      case 'recovered':
        void this.#pipeline.send(event.stream).then(
          async (stream) => {
            this.#stream = stream;
            this.#startMeter(stream);
            this.#setMedia({ microphoneWarning: null });
            const track = stream.getAudioTracks()[0];
            if (track)
              await this.#peer
                ?.replaceTrack(track)
                .catch((error: unknown) => this.#log('replaceTrack', error));
          },
          (error: unknown) => this.#log('The recovered microphone could not be prepared', error),
        );
        break;
      default:
        break;
    }
  }

  /** The voice settings switched noise suppression: the call gets the other stream, muted as it is. */
  async #swapMicrophone(stream: MediaStream): Promise<void> {
    this.#stream = stream;
    for (const track of stream.getAudioTracks()) track.enabled = !this.#media.muted;
    if (this.#meter) this.#startMeter(stream);
    const track = stream.getAudioTracks()[0];
    if (track) await this.#peer?.replaceTrack(track);
  }

  #startMeter(stream: MediaStream): void {
    this.#meter?.close();
    this.#meter = null;
    if (typeof AudioContext === 'undefined') return;
    try {
      this.#meter = new LevelMeter(stream, (level) => {
        for (const listener of [...this.#levelListeners]) listener(level);
      });
      this.#meterAsNeeded();
    } catch (error) {
      this.#log('The level meter could not start', error);
    }
  }

  /** The meter sleeps while it has no work (LevelMeter): told whether you send. */
  #meterAsNeeded(): void {
    this.#meter?.setSending(!this.#media.muted);
  }

  #closePeer(): void {
    this.#peer?.close();
    this.#peer = null;
    this.#peerCallId = null;
    this.#queued = [];
    this.#meter?.close();
    this.#meter = null;
    this.#audio.close();
  }

  /** No call left: the microphone is released and the next call starts unmuted. */
  #releaseCall(): void {
    this.#closePeer();
    this.#coolDown();
    if (this.#stream || this.#opening) {
      this.#pipeline.close();
      this.#microphone.cleanup();
    }
    this.#stream = null;
    this.#opening = null;
    this.#configuration = null;
    this.#toldMuted = null;
    this.#setMedia({ muted: false, microphoneWarning: null, peerMuted: false });
  }

  #setMedia(change: Partial<CallMediaState>): void {
    const next = { ...this.#media, ...change };
    if (
      next.muted === this.#media.muted &&
      next.microphoneWarning === this.#media.microphoneWarning &&
      next.peerMuted === this.#media.peerMuted
    )
      return;
    this.#media = next;
    this.#meterAsNeeded();
    for (const listener of [...this.#mediaListeners]) listener(next);
  }
}
