/**
 * Being in a group room, whichever page is open: asks the API to join (password, capacity and
 * the room token are checked there), connects a RoomClient to the media server it names, and
 * when that connection is lost (network, a media server's worker restarting) joins again by
 * itself with a fresh token, without a reload. Mute, deafen and per-member volumes survive a
 * rejoin. One room at a time.
 *
 * A media server the page could not get into is named to the API on the next try (`unreachable`
 * of the join): the API asks that server itself and, if it is dead, moves the room to a live one
 * at once. A server that refused the connection outright is reported on an immediate second
 * try, so a killed media server costs a second or two, not the announcements' timeout; so is
 * one that opened and then did not let us in within a step's deadline (see worthOneMoreTry).
 *
 * The microphone follows the one chosen in this browser (switched live, through the same
 * processing), a lost one is recovered (MicrophoneManager) with a warning meanwhile, and the
 * others play to the chosen speaker.
 */
import type { JoinRoomResponse, Room, RoomPermissions } from '@voice/protocol';
import { ApiError } from '../../api/client.ts';
import type { ErrorMessage } from '../../api/errorMessage.ts';
import { roomsApi } from '../../api/rooms.ts';
import { audioDeviceChoices, outputToUse, subscribeAudioDevices } from '../../media/audioDevices.ts';
import { LevelMeter } from '../../media/levelMeter.ts';
import type { MicrophoneEvent, MicrophoneManager } from '../../media/MicrophoneManager.ts';
import { MicrophonePipeline } from '../../media/MicrophonePipeline.ts';
import { MicrophoneError } from '../../media/microphoneErrors.ts';
import type { TurnCredentials } from '../../media/turnCredentials.ts';
import { RoomClient, RoomConnectError, type RoomDisconnect } from './RoomClient.ts';
import { idleRoomState, type RoomAction, type RoomState, roomReducer } from './roomState.ts';

export interface RoomSessionOptions {
  /** Your id and name, as the others see you. */
  me: { id: string; displayName: string };
  microphone: MicrophoneManager;
  turn: Pick<TurnCredentials, 'getRtcConfiguration'>;
  /** The translated message of a failed request. */
  describeError: (error: unknown) => ErrorMessage;
}

/**
 * How to get into a room: its id and password, and `admit`, the API call of the first
 * connection when it is not a plain join (accepting an invitation); rejoins are plain joins.
 */
interface JoinPlan {
  roomId: string;
  password: string | undefined;
  admit?: (() => Promise<JoinRoomResponse>) | undefined;
}

/**
 * Rejoin attempts after a lost connection: 1 s, 2 s, 4 s, 5 s… while what fails them may pass
 * (see mayPass), for at most this long, the status "Reconnecting…" all along, as Discord keeps
 * reconnecting: an API roll or a media server's restart that runs slow ends nobody's room.
 * An answer that will not change (the room is gone, you were removed, it is full) ends it at once.
 */
const REJOIN_WINDOW_MS = 5 * 60_000;
const REJOIN_MAX_DELAY_MS = 5000;
/** The wait before the first try after a lost connection, and the least between tries. */
const REJOIN_FIRST_DELAY_MS = 1000;

export class RoomSession {
  readonly #options: RoomSessionOptions;
  #state: RoomState = idleRoomState;
  readonly #listeners = new Set<(state: RoomState) => void>();
  #client: RoomClient | null = null;
  #transmitting = true;
  /** Your own voice's level, measured here: muted or not, so "You are muted" can be said. */
  #meter: { stream: MediaStream; meter: LevelMeter } | null = null;
  readonly #levelListeners = new Set<(level: number) => void>();
  /** The microphone as sent: through noise suppression when the settings say so. */
  readonly #pipeline = new MicrophonePipeline({ swap: (stream) => this.#swapMicrophone(stream) });
  /** What the current room was joined with, for rejoining. */
  #joined: JoinPlan | null = null;
  /** Bumped by every join and leave: work of an older one stops. */
  #generation = 0;
  #rejoinTimer: ReturnType<typeof setTimeout> | null = null;
  /** The media server the last try of a room could not get into, told to the API on the next. */
  #unreachable: { roomId: string; mediaUrl: string } | null = null;
  /** The device choices last applied, to tell which one changed. */
  #devices = audioDeviceChoices();
  readonly #unsubscribe: (() => void)[];

  constructor(options: RoomSessionOptions) {
    this.#options = options;
    this.#unsubscribe = [
      options.microphone.onEvent((event) => this.#onMicrophone(event)),
      subscribeAudioDevices(() => this.#devicesChanged()),
    ];
  }

  get state(): RoomState {
    return this.#state;
  }

  subscribe(listener: (state: RoomState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Joins `roomId` (leaving the room you are in). Resolves true once connected; false when
   * the API or the media server refused (the reason is in `state.error`).
   */
  async join(roomId: string, password?: string): Promise<boolean> {
    return this.#start({ roomId, password });
  }

  /** Accepts an invitation and joins its room (later rejoins are plain joins). */
  async acceptInvitation(invitationId: string, roomId: string): Promise<boolean> {
    return this.#start({ roomId, password: undefined, admit: () => roomsApi.acceptInvitation(invitationId) });
  }

  async #start(joined: JoinPlan): Promise<boolean> {
    await this.leave();
    const generation = ++this.#generation;
    this.#dispatch({ type: 'join/started' });
    this.#joined = joined;
    return this.#connect(generation, false);
  }

  async leave(): Promise<void> {
    this.#generation++;
    this.#clearRejoin();
    const client = this.#client;
    this.#client = null;
    this.#joined = null;
    this.#dispatch({ type: 'left' });
    this.#stopMeter();
    this.#releaseMicrophone();
    await client?.leave().catch((error: unknown) => {
      console.warn('Leaving the room failed', error);
      this.#dispatch({ type: 'leave/failed' });
    });
  }

  /** Mutes or unmutes you; unmuting does nothing while an admin or moderator has you muted. */
  async setMuted(muted: boolean): Promise<void> {
    await this.#voiceAction({ type: 'you/muted', muted });
  }

  /** Deafens you (which mutes you too) or undeafens you (giving back the mute you had). */
  async setDeafened(deafened: boolean): Promise<void> {
    await this.#voiceAction({ type: 'you/deafened', deafened });
  }

  /** Applies `action`, then tells the media server what it changed of your mute and deafen. */
  async #voiceAction(action: RoomAction, client = this.#client): Promise<void> {
    const before = this.#state;
    this.#dispatch(action);
    const after = this.#state;
    // Your own mute is sent even when the page had it so already (the server may not), unless refused.
    const resend = action.type === 'you/muted' && after.muted === action.muted;
    await Promise.all([
      after.muted !== before.muted || resend
        ? client?.setMuted(after.muted).catch((error: unknown) => console.warn('Mute failed', error))
        : undefined,
      after.deafened !== before.deafened
        ? client?.setDeafened(after.deafened).catch((error: unknown) => console.warn('Deafen failed', error))
        : undefined,
    ]);
  }

  /** Push-to-talk or voice activity: whether the microphone is sent now (see VoiceGate). */
  setTransmitting(open: boolean): void {
    this.#transmitting = open;
    this.#client?.setTransmitting(open);
  }

  /** The level of your own voice (0..1), a few times a second while in a room, muted or not. */
  onLocalLevel(listener: (level: number) => void): () => void {
    this.#levelListeners.add(listener);
    return () => this.#levelListeners.delete(listener);
  }

  /** Measures `stream`, once per stream (the meter hears you muted too: see LevelMeter). */
  #measure(stream: MediaStream): void {
    if (this.#meter?.stream === stream) return;
    this.#stopMeter();
    if (typeof AudioContext === 'undefined') return;
    try {
      const meter = new LevelMeter(stream, (level) => {
        for (const listener of [...this.#levelListeners]) listener(level);
      });
      this.#meter = { stream, meter };
      this.#meterAsNeeded();
    } catch (error) {
      console.warn('Your voice level cannot be measured', error);
    }
  }

  /** The meter sleeps while it has no work (LevelMeter): told whether you send. */
  #meterAsNeeded(): void {
    this.#meter?.meter.setSending(!this.#state.muted && this.#state.stageRole.speaker);
  }

  #stopMeter(): void {
    this.#meter?.meter.close();
    this.#meter = null;
    for (const listener of [...this.#levelListeners]) listener(0);
  }

  /** The room connection's WebRTC statistics; none while not connected. */
  connectionStats(): Promise<RTCStatsReport[]> {
    return this.#client?.connectionStats() ?? Promise.resolve([]);
  }

  setVolume(peerId: string, volume: number): void {
    this.#client?.setVolume(peerId, volume);
    this.#dispatch({ type: 'volume/set', peerId, volume });
  }

  kick(peerId: string): Promise<unknown> | undefined {
    return this.#client?.kickPeer(peerId);
  }

  mutePeer(peerId: string): Promise<unknown> | undefined {
    return this.#client?.mutePeer(peerId);
  }

  unmutePeer(peerId: string): Promise<unknown> | undefined {
    return this.#client?.unmutePeer(peerId);
  }

  /** On a stage, in the audience: raises or lowers your hand. */
  raiseHand(raised: boolean): Promise<unknown> | undefined {
    return this.#client?.raiseHand(raised);
  }

  /** On a stage, admin or moderator: lets a raised hand (or yourself) speak. */
  inviteToSpeak(peerId: string): Promise<unknown> | undefined {
    return this.#client?.inviteToSpeak(peerId);
  }

  /** On a stage: moves a speaker (or yourself) to the audience. */
  moveToAudience(peerId: string): Promise<unknown> | undefined {
    return this.#client?.moveToAudience(peerId);
  }

  /** The admin changed the room (settings, lock, moderators): show it as it is now. */
  roomChanged(room: Room): void {
    this.#dispatch({ type: 'room/changed', room });
  }

  /** Forgets an ended room's message. */
  dismiss(): void {
    this.#dispatch({ type: 'message/dismissed' });
  }

  /** Logout: leaves and stops listening. */
  dispose(): void {
    void this.leave();
    this.#pipeline.dispose();
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#listeners.clear();
  }

  #releaseMicrophone(): void {
    this.#pipeline.close();
    this.#options.microphone.cleanup();
  }

  /** A new capture (another microphone chosen, or a lost one recovered) goes through the processing. */
  #onMicrophone(event: MicrophoneEvent): void {
    if (this.#state.status === 'idle') return;
    switch (event.type) {
      case 'permission-revoked':
        this.#dispatch({ type: 'microphone/warning', warning: 'permission-lost' });
        break;
      case 'track-ended':
        this.#dispatch({ type: 'microphone/warning', warning: 'device-lost' });
        break;
      case 'recovery-failed':
        this.#dispatch({ type: 'microphone/warning', warning: 'not-working' });
        break;
      case 'recovered':
      case 'switched': {
        const generation = this.#generation;
        this.#pipeline
          .send(event.stream)
          .then(async (stream) => {
            if (generation !== this.#generation) return;
            if (event.type === 'recovered') this.#dispatch({ type: 'microphone/warning', warning: null });
            await this.#swapMicrophone(stream);
          })
          .catch((error: unknown) => console.warn('The new microphone could not be sent', error));
        break;
      }
      default:
        break;
    }
  }

  /** The person chose another microphone or speaker in the voice settings. */
  #devicesChanged(): void {
    const previous = this.#devices;
    const now = audioDeviceChoices();
    this.#devices = now;
    if (now.input !== previous.input && this.#options.microphone.stream) {
      this.#options.microphone
        .switchInput()
        .catch((error: unknown) => console.warn('The chosen microphone could not be opened', error));
    }
    if (now.output !== previous.output) void this.#applyOutput();
  }

  /** The others play to the chosen speaker (the default when it is gone). */
  async #applyOutput(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    const deviceId = await outputToUse();
    if (this.#client === client) client.setOutput(deviceId);
  }

  /** The voice settings switched noise suppression: the room gets the other stream. */
  async #swapMicrophone(stream: MediaStream): Promise<void> {
    const track = stream.getAudioTracks()[0];
    if (!track || !this.#client) return;
    this.#measure(stream);
    await this.#client.replaceTrack(track);
  }

  async #connect(generation: number, rejoin: boolean): Promise<boolean> {
    const joined = this.#joined;
    if (!joined) return false;
    try {
      let entered: boolean;
      try {
        entered = await this.#attempt(generation, joined);
      } catch (error) {
        if (!worthOneMoreTry(error) || generation !== this.#generation) throw error;
        console.warn('Joining the room failed; trying once more', error);
        entered = await this.#attempt(generation, joined);
      }
      if (!entered) return false;
      this.#dispatch({ type: 'join/connected', members: this.#client?.members ?? [] });
      return true;
    } catch (error) {
      if (generation !== this.#generation) return false;
      console.warn('Joining the room failed', error);
      if (rejoin) throw error;
      this.#joined = null;
      this.#releaseMicrophone();
      this.#dispatch({ type: 'join/failed', error: this.#options.describeError(error) });
      return false;
    }
  }

  /**
   * One try: asks the API (telling it which media server the last try could not reach), then
   * connects to the media server it names. False when a newer join or a leave took over.
   */
  async #attempt(generation: number, joined: JoinPlan): Promise<boolean> {
    const unreachable = this.#unreachable?.roomId === joined.roomId ? this.#unreachable.mediaUrl : undefined;
    const admit = joined.admit ?? (() => roomsApi.join(joined.roomId, joined.password, unreachable));
    joined.admit = undefined;
    const [stream, rtcConfiguration, answer] = await Promise.all([
      this.#options.microphone.getStream('call').then((capture) => this.#pipeline.send(capture)),
      this.#options.turn.getRtcConfiguration(),
      admit(),
    ]);
    if (generation !== this.#generation) return false;
    this.#measure(stream);
    const url = new URL(answer.mediaUrl);
    url.searchParams.set('roomId', joined.roomId);
    url.searchParams.set('peerId', this.#options.me.id);
    url.searchParams.set('token', answer.roomToken);
    const me = this.#options.me.id;
    const permissions: RoomPermissions = {
      admin: answer.room.admin.id === me,
      moderator: answer.room.moderators.includes(me),
    };
    const client: RoomClient = new RoomClient({
      url: url.toString(),
      peerId: this.#options.me.id,
      displayName: this.#options.me.displayName,
      permissions,
      stream,
      stage: answer.room.stage,
      rtcConfiguration,
      events: {
        members: (members) => {
          if (this.#client === client) this.#dispatch({ type: 'server/members', members });
        },
        activeSpeaker: (activeSpeaker) => {
          if (this.#client === client)
            this.#dispatch({ type: 'server/active-speaker', peerId: activeSpeaker });
        },
        mutedBy: (mutedBy) => {
          if (this.#client !== client) return;
          this.#dispatch({ type: 'server/muted-by', mutedBy });
        },
        moderator: (moderator) => {
          if (this.#client === client) this.#dispatch({ type: 'server/moderator', moderator });
        },
        actingAdmin: (actingAdmin) => {
          if (this.#client === client) this.#dispatch({ type: 'server/acting-admin', peerId: actingAdmin });
        },
        stage: (role) => {
          // Invited to speak after asking, you may be unmuted (roomState): the server hears it.
          if (this.#client === client) void this.#voiceAction({ type: 'server/stage', role }, client);
        },
        disconnected: (reason) => {
          if (this.#client === client) this.#disconnected(reason);
        },
      },
    });
    this.#client = client;
    this.#dispatch({ type: 'join/admitted', room: answer.room, moderator: permissions.moderator });
    try {
      try {
        await client.join();
      } catch (error) {
        if (error instanceof RoomConnectError) {
          this.#unreachable = { roomId: joined.roomId, mediaUrl: answer.mediaUrl };
        }
        throw error;
      }
      this.#unreachable = null;
      if (generation !== this.#generation) return false;
      // What the person chose before a rejoin holds after it.
      for (const [peerId, volume] of Object.entries(this.#state.volumes)) client.setVolume(peerId, volume);
      void this.#applyOutput();
      client.setTransmitting(this.#transmitting);
      if (this.#state.muted) await client.setMuted(true);
      if (this.#state.deafened) await client.setDeafened(true);
      return true;
    } catch (error) {
      client.close();
      if (this.#client === client) this.#client = null;
      throw error;
    }
  }

  #disconnected(reason: RoomDisconnect): void {
    this.#client = null;
    if (reason !== 'lost' && reason !== 'moved') {
      this.#generation++;
      this.#joined = null;
      this.#stopMeter();
      this.#releaseMicrophone();
      this.#dispatch({ type: 'ended', reason });
      return;
    }
    this.#dispatch({ type: 'connection/lost' });
    // Asked to move, the room is ready elsewhere at once; a lost connection waits a little.
    this.#scheduleRejoin(this.#generation, Date.now(), reason === 'moved' ? 0 : REJOIN_FIRST_DELAY_MS);
  }

  #scheduleRejoin(generation: number, since: number, delay: number): void {
    this.#clearRejoin();
    this.#rejoinTimer = setTimeout(async () => {
      this.#rejoinTimer = null;
      if (generation !== this.#generation) return;
      try {
        await this.#connect(generation, true);
      } catch (error) {
        if (generation !== this.#generation) return;
        if (!mayPass(error) || Date.now() - since + delay > REJOIN_WINDOW_MS) {
          this.#generation++;
          this.#joined = null;
          this.#releaseMicrophone();
          this.#dispatch({ type: 'ended', reason: 'failed', error: this.#options.describeError(error) });
          return;
        }
        this.#scheduleRejoin(
          generation,
          since,
          Math.min(REJOIN_MAX_DELAY_MS, Math.max(REJOIN_FIRST_DELAY_MS, delay * 2)),
        );
      }
    }, delay);
  }

  #clearRejoin(): void {
    if (this.#rejoinTimer !== null) clearTimeout(this.#rejoinTimer);
    this.#rejoinTimer = null;
  }

  #dispatch(action: RoomAction): void {
    const next = roomReducer(this.#state, action);
    if (next === this.#state) return;
    this.#state = next;
    this.#meterAsNeeded();
    for (const listener of [...this.#listeners]) listener(this.#state);
  }
}

/**
 * Whether a failed rejoin may work later: anything but a final answer of the API (the room is
 * gone, you were removed or banned, it is full or locked, your session ended: a 4xx other than
 * 408 and 429) or a microphone that cannot be had. No answer, a busy or restarting service, a
 * media server that could not be reached, did not let us in in time or closed on the way in: a
 * later try may get in.
 */
export function mayPass(error: unknown): boolean {
  if (error instanceof MicrophoneError) return false;
  if (!(error instanceof ApiError)) return true;
  return error.isNetworkError || error.status >= 500 || error.status === 408 || error.status === 429;
}

/**
 * Whether a join that failed on the media server's side gets one more try at once, with a new
 * token: its /rtc refused us (the API, told so, checks that server and moves the room if it is
 * dead, so a killed media server costs no backoff), or it opened and then did not finish letting
 * us in within a step's deadline (a busy server, an answer lost). One whose /rtc never opened
 * within the deadline is not tried again: "Failed to connect to room" comes in 10 s. A request to
 * the API that got no answer at all (a dropped connection) is tried once more too: the join is
 * one seat per person, so asking twice takes no second seat.
 */
function worthOneMoreTry(error: unknown): boolean {
  if (error instanceof ApiError) return error.isNetworkError;
  if (!(error instanceof RoomConnectError)) return false;
  return error.reason === 'unreachable' || error.step !== 'socket';
}
