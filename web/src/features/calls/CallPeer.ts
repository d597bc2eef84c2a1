/**
 * The peer-to-peer audio of one call: an RTCPeerConnection carrying the microphone one way
 * and the other party's voice back, negotiated through the app socket's relay of
 * `webrtc-offer`, `webrtc-answer` and `webrtc-ice-candidate`.
 *
 * The caller offers while the call rings, as a SIP INVITE carries its offer: the server hands
 * the offer and the caller's candidates to every ringing tab of the callee. A callee's peer
 * made while ringing (`ringing`) only prepares its answer then (remote description set, answer
 * created, nothing of its own gathered or sent, so the caller learns nothing of the callee
 * before Accept); accept() sets it and hands it over to go out with accept-call, and the
 * callee's candidates follow once that went through (accepted()). A callee that accepts before
 * the offer came answers it when it comes, with `webrtc-answer`, but not before accept-call went
 * through: the server relays nothing from the callee of a call still ringing. Both ask for Opus
 * with in-band FEC and DTX. When the connection drops it reports `disconnected`, and if it has not
 * come back after CALL_TIMERS.disconnectWaitMs (or ICE failed outright) `reconnecting` while
 * the caller restarts ICE with a new offer; `failed` when that has not worked within
 * CALL_TIMERS.iceRestartTimeoutMs, or when the first connection never came up.
 */
import { CALL_TIMERS, type CallIceCandidate } from '@voice/protocol';
import { withOpusParameters } from '../../media/sdp.ts';
import type { CallConnection } from './callState.ts';

/** Sends this call's negotiation to the other party (through the app socket). */
export interface CallSignals {
  offer(sdp: string): Promise<unknown>;
  answer(sdp: string): Promise<unknown>;
  candidate(candidate: CallIceCandidate): Promise<unknown>;
}

/** Why the peer gave up: its negotiation broke, or its connection did. */
export type CallPeerFailure = 'webrtc-failed' | 'peer-connection-failed';

export interface CallPeerEvents {
  /** The first time audio can flow. */
  connected(): void;
  /** `ok` again, `disconnected`, `reconnecting` (never `failed`: see `failed`). */
  connection(connection: Exclude<CallConnection, 'failed'>): void;
  /** The peer gave up; the call should end with this reason. Said once. */
  failed(reason: CallPeerFailure): void;
  /** The other party's audio, to play. */
  remoteStream(stream: MediaStream): void;
}

export interface CallPeerOptions {
  isInitiator: boolean;
  configuration: RTCConfiguration;
  /**
   * The microphone, sent to the other party. A callee may start without it (null) and hand it
   * over with replaceTrack() once it opens: the answer goes out meanwhile, ready to send.
   */
  stream: MediaStream | null;
  signals: CallSignals;
  events: CallPeerEvents;
  /**
   * A callee's peer made while the call rings: an offer is answered only in part until
   * accept(). False (the default) for a callee that already accepted.
   */
  ringing?: boolean;
  createPeerConnection?: (configuration: RTCConfiguration) => RTCPeerConnection;
  log?: (message: string, error: unknown) => void;
}

export class CallPeer {
  readonly #pc: RTCPeerConnection;
  readonly #isInitiator: boolean;
  readonly #signals: CallSignals;
  readonly #events: CallPeerEvents;
  readonly #log: (message: string, error: unknown) => void;
  readonly #senders: RTCRtpSender[] = [];
  /** The microphone's track, once there (sent by every sender). */
  #track: MediaStreamTrack | null = null;
  /** Candidates that came before the remote description they belong to. */
  #pendingCandidates: RTCIceCandidateInit[] = [];
  #connectedOnce = false;
  /** The caller's first offer, made at once and sent by start(). */
  readonly #firstOffer: Promise<boolean> | null;
  /** Whether the caller's first offer went out: candidates found before it are inside it. */
  #offerSent = false;
  /** A callee's: whether this tab accepted the call (the caller's is always true). */
  #accepted: boolean;
  /** A callee's answer to the offer that came while ringing, not yet set (null: it broke). */
  #preparedAnswer: Promise<string | null> | null = null;
  /** A callee's own candidates, held until its answer went out with accept-call. */
  #heldCandidates: CallIceCandidate[] | null = null;
  /** Settles once accept-call went through (at once for a caller or an accepted callee), or on close. */
  readonly #acceptanceSent: Promise<void>;
  #settleAcceptance: () => void = () => {};
  /** The other party's audio, reported once the callee accepted. */
  #remoteStream: MediaStream | null = null;
  #started = false;
  #restarting = false;
  #muted = false;
  #transmitting = true;
  /** The last change of the senders' encoding (see #applyActive). */
  #activeChange: Promise<void> = Promise.resolve();
  #done = false;
  #disconnectTimer: ReturnType<typeof setTimeout> | null = null;
  #restartTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(options: CallPeerOptions) {
    this.#isInitiator = options.isInitiator;
    this.#signals = options.signals;
    this.#events = options.events;
    this.#log = options.log ?? ((message, error) => console.warn(message, error));
    const create = options.createPeerConnection ?? ((configuration) => new RTCPeerConnection(configuration));
    this.#pc = create(options.configuration);
    for (const track of options.stream?.getAudioTracks() ?? []) {
      this.#track = track;
      this.#senders.push(this.#pc.addTrack(track, options.stream as MediaStream));
    }
    this.#accepted = this.#isInitiator || !options.ringing;
    this.#acceptanceSent = this.#accepted
      ? Promise.resolve()
      : new Promise((resolve) => {
          this.#settleAcceptance = resolve;
        });
    this.#pc.addEventListener('track', (event) => {
      this.#remoteStream = event.streams[0] ?? new MediaStream([event.track]);
      if (this.#accepted) this.#events.remoteStream(this.#remoteStream);
    });
    this.#pc.addEventListener('icecandidate', ({ candidate }) => {
      if (!candidate?.candidate || this.#done) return;
      if (this.#isInitiator && !this.#offerSent) return; // the offer will carry it
      const { sdpMid, sdpMLineIndex, usernameFragment } = candidate;
      const found = { candidate: candidate.candidate, sdpMid, sdpMLineIndex, usernameFragment };
      if (this.#heldCandidates) this.#heldCandidates.push(found);
      else this.#sendCandidate(found);
    });
    this.#pc.addEventListener('connectionstatechange', () => this.#onConnectionState());
    this.#firstOffer = this.#isInitiator ? this.#describeOffer(false) : null;
  }

  /** The underlying connection's state, for tests and diagnostics. */
  get connectionState(): RTCPeerConnectionState {
    return this.#pc.connectionState;
  }

  /**
   * The caller's first offer, with every candidate found so far (the rest follow it), sent
   * while the call rings. Does nothing for the callee or twice.
   */
  start(): void {
    if (!this.#isInitiator || this.#started || this.#done) return;
    this.#started = true;
    void this.#sendFirstOffer();
  }

  async #sendFirstOffer(): Promise<void> {
    if (!(await this.#firstOffer) || this.#done) return;
    const sdp = this.#pc.localDescription?.sdp ?? '';
    this.#offerSent = true;
    try {
      await this.#signals.offer(sdp);
    } catch (error) {
      this.#negotiationFailed('The offer failed', error);
    }
  }

  /**
   * The other party's offer (the first, or an ICE restart): answer it. While ringing, the
   * answer is only prepared, for accept().
   */
  async handleOffer(sdp: string): Promise<void> {
    if (this.#isInitiator || this.#done) return;
    if (!this.#accepted) {
      if (this.#preparedAnswer) this.#log('A second offer while ringing was ignored', null);
      else this.#preparedAnswer = this.#prepareAnswer(sdp);
      return;
    }
    if (this.#preparedAnswer) await this.#preparedAnswer; // its description comes first
    try {
      const answer = await this.#describeAnswer(sdp);
      await this.#pc.setLocalDescription({ type: 'answer', sdp: answer });
      this.#applyActive();
      // Accepted before the offer came, and the offer came before accept-call went through.
      await this.#acceptanceSent;
      if (this.#done) return;
      await this.#signals.answer(answer);
    } catch (error) {
      this.#negotiationFailed('Answering the offer failed', error);
    }
  }

  /**
   * This (ringing) tab accepts: the answer prepared while ringing becomes the local
   * description and is returned, to go out with accept-call; null when no offer came yet (it
   * is answered when it comes) or the answer broke (the peer failed).
   */
  async accept(): Promise<string | null> {
    if (this.#isInitiator || this.#accepted || this.#done) return null;
    this.#accepted = true;
    this.#heldCandidates = []; // until accept-call went through
    if (this.#remoteStream) this.#events.remoteStream(this.#remoteStream);
    if (!this.#preparedAnswer) return null;
    const sdp = await this.#preparedAnswer;
    if (this.#done) return null;
    if (sdp === null) {
      this.#fail('webrtc-failed');
      return null;
    }
    try {
      await this.#pc.setLocalDescription({ type: 'answer', sdp });
      this.#applyActive();
      return sdp;
    } catch (error) {
      this.#negotiationFailed('Setting the answer failed', error);
      return null;
    }
  }

  /** The answer accept() returned went out with accept-call: the candidates held meanwhile follow. */
  accepted(): void {
    const held = this.#heldCandidates ?? [];
    this.#heldCandidates = null;
    this.#settleAcceptance();
    if (!this.#done) for (const candidate of held) this.#sendCandidate(candidate);
  }

  async handleAnswer(sdp: string): Promise<void> {
    if (!this.#isInitiator || this.#done || this.#pc.signalingState !== 'have-local-offer') return;
    try {
      await this.#pc.setRemoteDescription({ type: 'answer', sdp });
      this.#applyActive();
      await this.#flushCandidates();
    } catch (error) {
      this.#negotiationFailed('Applying the answer failed', error);
    }
  }

  async handleCandidate(candidate: CallIceCandidate): Promise<void> {
    if (this.#done) return;
    if (!this.#pc.remoteDescription) {
      this.#pendingCandidates.push(candidate);
      return;
    }
    await this.#addCandidate(candidate);
  }

  /**
   * Mutes or unmutes the microphone on this call. Muted, the call sends nothing at all: the
   * track is disabled and the sender's encoding inactive (no Opus encoded, not even DTX's
   * silence; a local change, nothing to negotiate), as a muted member of a room sends nothing.
   */
  setMuted(muted: boolean): void {
    this.#muted = muted;
    this.#applySending();
  }

  /**
   * Push-to-talk or voice activity (VoiceGate): closed, the track sends silence (the encoder
   * keeps running, so the voice starts at once when the gate opens).
   */
  setTransmitting(open: boolean): void {
    this.#transmitting = open;
    this.#applySending();
  }

  #applySending(): void {
    for (const sender of this.#senders) {
      if (sender.track) sender.track.enabled = !this.#muted && this.#transmitting;
    }
    this.#applyActive();
  }

  /**
   * Turns the senders' encoding off while muted, on otherwise. One change at a time (a
   * setParameters must follow its own getParameters), each reading the mute when it runs; a
   * sender not negotiated yet may have no encoding: this runs again once a description is set.
   */
  #applyActive(): void {
    this.#activeChange = this.#activeChange.then(async () => {
      for (const sender of this.#senders) {
        if (this.#done) return;
        const parameters = sender.getParameters();
        const encoding = parameters.encodings[0];
        if (!encoding || encoding.active === !this.#muted) continue;
        encoding.active = !this.#muted;
        await sender
          .setParameters(parameters)
          .catch((error: unknown) => this.#log('Switching the sent audio on or off failed', error));
      }
    });
  }

  /**
   * Puts the microphone's track on the call, keeping the mute: the first one for a callee who
   * answered while it opened, or a recovered one in place of the lost one.
   */
  async replaceTrack(track: MediaStreamTrack): Promise<void> {
    track.enabled = !this.#muted && this.#transmitting;
    this.#track = track;
    await Promise.all(this.#senders.map((sender) => sender.replaceTrack(track)));
  }

  /**
   * A callee that started without a microphone sends on the audio the offer brought: the
   * transceivers the offer made become send-and-receive, with the track once there.
   */
  async #sendOnOfferedAudio(): Promise<void> {
    if (this.#senders.length > 0) return;
    for (const transceiver of this.#pc.getTransceivers()) {
      if (transceiver.receiver.track.kind !== 'audio' || transceiver.currentDirection === 'stopped') continue;
      transceiver.direction = 'sendrecv';
      this.#senders.push(transceiver.sender);
      if (this.#track) await transceiver.sender.replaceTrack(this.#track);
    }
  }

  /** Sets the offer and creates the answer (sending on the offered audio), without setting it. */
  async #describeAnswer(offer: string): Promise<string> {
    await this.#pc.setRemoteDescription({ type: 'offer', sdp: offer });
    await this.#sendOnOfferedAudio();
    await this.#flushCandidates();
    const answer = await this.#pc.createAnswer();
    return withOpusParameters(answer.sdp ?? '');
  }

  /** #describeAnswer while ringing: a failure is held for accept() (null), not reported yet. */
  async #prepareAnswer(offer: string): Promise<string | null> {
    try {
      return await this.#describeAnswer(offer);
    } catch (error) {
      this.#log('Preparing the answer failed', error);
      return null;
    }
  }

  #sendCandidate(candidate: CallIceCandidate): void {
    this.#signals
      .candidate(candidate)
      .catch((error: unknown) => this.#log('Sending an ICE candidate failed', error));
  }

  /** The peer connection's WebRTC statistics. */
  stats(): Promise<RTCStatsReport> {
    return this.#pc.getStats();
  }

  /** Ends the connection. Idempotent; nothing is reported afterwards. */
  close(): void {
    if (this.#done) return;
    this.#done = true;
    this.#settleAcceptance();
    this.#clearTimers();
    this.#pc.close();
  }

  /** Creates an offer and sets it as the local description; false (the peer failed) if that broke. */
  async #describeOffer(iceRestart: boolean): Promise<boolean> {
    try {
      const offer = await this.#pc.createOffer({ iceRestart });
      await this.#pc.setLocalDescription({ type: 'offer', sdp: withOpusParameters(offer.sdp ?? '') });
      return true;
    } catch (error) {
      this.#negotiationFailed(iceRestart ? 'The ICE restart offer failed' : 'The offer failed', error);
      return false;
    }
  }

  /** An ICE restart: a new offer, sent at once. */
  async #restartOffer(): Promise<void> {
    if (!(await this.#describeOffer(true)) || this.#done) return;
    try {
      await this.#signals.offer(this.#pc.localDescription?.sdp ?? '');
    } catch (error) {
      this.#negotiationFailed('The ICE restart offer failed', error);
    }
  }

  async #flushCandidates(): Promise<void> {
    const pending = this.#pendingCandidates;
    this.#pendingCandidates = [];
    for (const candidate of pending) await this.#addCandidate(candidate);
  }

  async #addCandidate(candidate: RTCIceCandidateInit): Promise<void> {
    try {
      await this.#pc.addIceCandidate(candidate);
    } catch (error) {
      // One bad candidate (or one of an earlier ICE generation) is not a failed call.
      this.#log('An ICE candidate was refused', error);
    }
  }

  #onConnectionState(): void {
    if (this.#done) return;
    switch (this.#pc.connectionState) {
      case 'connected':
        this.#clearTimers();
        this.#restarting = false;
        if (!this.#connectedOnce) {
          this.#connectedOnce = true;
          this.#events.connected();
        } else {
          this.#events.connection('ok');
        }
        break;
      case 'disconnected':
        if (!this.#connectedOnce || this.#restarting) break;
        this.#events.connection('disconnected');
        if (this.#disconnectTimer === null) {
          this.#disconnectTimer = setTimeout(() => {
            this.#disconnectTimer = null;
            this.#restart();
          }, CALL_TIMERS.disconnectWaitMs);
        }
        break;
      case 'failed':
        if (!this.#connectedOnce) this.#fail('peer-connection-failed');
        else this.#restart();
        break;
      default:
        break;
    }
  }

  /** Restarts ICE (the caller offers anew; the callee waits for that offer), with a deadline. */
  #restart(): void {
    if (this.#restarting || this.#done) return;
    this.#restarting = true;
    this.#clearTimers();
    this.#events.connection('reconnecting');
    this.#restartTimer = setTimeout(
      () => this.#fail('peer-connection-failed'),
      CALL_TIMERS.iceRestartTimeoutMs,
    );
    if (this.#isInitiator) void this.#restartOffer();
  }

  #negotiationFailed(message: string, error: unknown): void {
    if (this.#done) return;
    this.#log(message, error);
    this.#fail('webrtc-failed');
  }

  #fail(reason: CallPeerFailure): void {
    if (this.#done) return;
    this.close();
    this.#events.failed(reason);
  }

  #clearTimers(): void {
    if (this.#disconnectTimer !== null) clearTimeout(this.#disconnectTimer);
    if (this.#restartTimer !== null) clearTimeout(this.#restartTimer);
    this.#disconnectTimer = null;
    this.#restartTimer = null;
  }
}
