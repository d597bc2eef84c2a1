import { CALL_TIMERS } from '@voice/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallPeer, type CallPeerEvents } from './CallPeer.ts';
import { FakePeerConnection, FakeTrack, fakeStream } from './testing/FakePeerConnection.ts';

function setUp(isInitiator: boolean, { failOffer = false, withMicrophone = true, ringing = false } = {}) {
  let pc: FakePeerConnection | undefined;
  const sent = { offers: [] as string[], answers: [] as string[], candidates: [] as string[] };
  const events = {
    connected: vi.fn(),
    connection: vi.fn(),
    failed: vi.fn(),
    remoteStream: vi.fn(),
  } satisfies CallPeerEvents;
  const track = new FakeTrack();
  const peer = new CallPeer({
    isInitiator,
    ringing,
    configuration: { iceServers: [] },
    stream: withMicrophone ? fakeStream(track) : null,
    signals: {
      offer: async (sdp) => sent.offers.push(sdp),
      answer: async (sdp) => sent.answers.push(sdp),
      candidate: async (candidate) => sent.candidates.push(candidate.candidate),
    },
    events,
    createPeerConnection: (configuration) => {
      pc = new FakePeerConnection(configuration);
      pc.failOffer = failOffer;
      return pc as unknown as RTCPeerConnection;
    },
    log: () => {},
  });
  if (!pc) throw new Error('no peer connection made');
  return { peer, pc, sent, events, track };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('CallPeer negotiation', () => {
  it('offers as the caller, asking for Opus in-band FEC and DTX, once', async () => {
    const { peer, pc, sent } = setUp(true);
    peer.start();
    peer.start();
    await flush();
    expect(sent.offers).toHaveLength(1);
    expect(sent.offers[0]).toContain('a=fmtp:111 minptime=10;useinbandfec=1;usedtx=1');
    expect(pc.localDescription?.sdp).toBe(sent.offers[0]);
    expect(pc.offers).toEqual([{ iceRestart: false }]);
  });

  it('answers as the callee with the same Opus parameters, and never offers', async () => {
    const { peer, pc, sent } = setUp(false);
    peer.start();
    await peer.handleOffer('remote-offer');
    expect(pc.offers).toEqual([]);
    expect(pc.remoteDescription).toEqual({ type: 'offer', sdp: 'remote-offer' });
    expect(sent.answers).toHaveLength(1);
    expect(sent.answers[0]).toContain('useinbandfec=1;usedtx=1');
  });

  it('answers before the microphone is there, sending on the offered audio once it comes, muted if muted', async () => {
    const { peer, pc, sent } = setUp(false, { withMicrophone: false });
    await peer.handleOffer('remote-offer');
    expect(sent.answers).toHaveLength(1);
    const [transceiver] = pc.transceivers;
    expect(transceiver?.direction).toBe('sendrecv');
    expect(transceiver?.sender.track).toBeNull();
    peer.setMuted(true);
    const microphone = new FakeTrack();
    await peer.replaceTrack(microphone as unknown as MediaStreamTrack);
    expect(transceiver?.sender.track).toBe(microphone);
    expect(microphone.enabled).toBe(false);
  });

  it('puts a microphone that came before the offer on the offered audio', async () => {
    const { peer, pc } = setUp(false, { withMicrophone: false });
    const microphone = new FakeTrack();
    await peer.replaceTrack(microphone as unknown as MediaStreamTrack);
    await peer.handleOffer('remote-offer');
    expect(pc.transceivers.map((t) => [t.direction, t.sender.track])).toEqual([['sendrecv', microphone]]);
  });

  it('while ringing, prepares the answer without setting it or sending anything, and hands it over on accept', async () => {
    const { peer, pc, sent, events } = setUp(false, { withMicrophone: false, ringing: true });
    await peer.handleCandidate({ candidate: 'candidate:early' });
    await peer.handleOffer('remote-offer');
    const remote = fakeStream();
    pc.receiveTrack(remote);
    await flush();
    expect(pc.remoteDescription).toEqual({ type: 'offer', sdp: 'remote-offer' });
    expect(pc.candidates.map((candidate) => candidate.candidate)).toEqual(['candidate:early']);
    expect(pc.transceivers[0]?.direction).toBe('sendrecv');
    // Nothing of the callee yet: no local description, no answer, no sound played.
    expect(pc.localDescription).toBeNull();
    expect(sent.answers).toEqual([]);
    expect(events.remoteStream).not.toHaveBeenCalled();

    const answer = await peer.accept();
    expect(answer).toContain('useinbandfec=1;usedtx=1');
    expect(pc.localDescription).toEqual({ type: 'answer', sdp: answer });
    expect(sent.answers).toEqual([]); // it goes with accept-call
    expect(events.remoteStream).toHaveBeenCalledWith(remote);
    // The candidates found before accept-call went through follow it, then the rest as found.
    pc.gather('candidate:a');
    await flush();
    expect(sent.candidates).toEqual([]);
    peer.accepted();
    pc.gather('candidate:b');
    await flush();
    expect(sent.candidates).toEqual(['candidate:a', 'candidate:b']);
    expect(await peer.accept()).toBeNull(); // once
  });

  it('accepted before the offer came: answers it when it comes, with webrtc-answer', async () => {
    const { peer, pc, sent } = setUp(false, { withMicrophone: false, ringing: true });
    expect(await peer.accept()).toBeNull();
    peer.accepted();
    await peer.handleOffer('remote-offer');
    expect(sent.answers).toHaveLength(1);
    expect(pc.localDescription).toEqual({ type: 'answer', sdp: sent.answers[0] });
  });

  it('accepted, then the offer came before accept-call went through: the answer and candidates wait for it', async () => {
    // The server relays nothing from the callee of a call still ringing (CALL_NOT_FOUND).
    const { peer, pc, sent, events } = setUp(false, { withMicrophone: false, ringing: true });
    expect(await peer.accept()).toBeNull();
    const answered = peer.handleOffer('remote-offer');
    await flush();
    pc.gather('candidate:a');
    await flush();
    expect(pc.localDescription?.type).toBe('answer');
    expect(sent.answers).toEqual([]);
    expect(sent.candidates).toEqual([]);
    peer.accepted();
    await answered;
    expect(sent.answers).toEqual([pc.localDescription?.sdp]);
    expect(sent.candidates).toEqual(['candidate:a']);
    expect(events.failed).not.toHaveBeenCalled();
  });

  it('an offer waiting for accept-call is dropped when the call closes meanwhile', async () => {
    const { peer, sent } = setUp(false, { withMicrophone: false, ringing: true });
    expect(await peer.accept()).toBeNull();
    const answered = peer.handleOffer('remote-offer');
    await flush();
    peer.close();
    await answered;
    expect(sent.answers).toEqual([]);
  });

  it('an offer it could not take while ringing fails the call on accept, with webrtc-failed', async () => {
    const { peer, pc, events } = setUp(false, { withMicrophone: false, ringing: true });
    pc.failRemoteOffer = true;
    await peer.handleOffer('broken-offer');
    await flush();
    expect(events.failed).not.toHaveBeenCalled(); // still ringing: nothing to fail yet
    expect(await peer.accept()).toBeNull();
    expect(events.failed).toHaveBeenCalledWith('webrtc-failed');
    expect(pc.closed).toBe(true);
  });

  it('holds candidates that come before the remote description, then adds them in order', async () => {
    const { peer, pc } = setUp(false);
    await peer.handleCandidate({ candidate: 'candidate:1' });
    await peer.handleCandidate({ candidate: 'candidate:2' });
    expect(pc.candidates).toEqual([]);
    await peer.handleOffer('remote-offer');
    await peer.handleCandidate({ candidate: 'candidate:3' });
    expect(pc.candidates.map((candidate) => candidate.candidate)).toEqual([
      'candidate:1',
      'candidate:2',
      'candidate:3',
    ]);
  });

  it('prepares the offer while the call rings and sends it only on start', async () => {
    const { peer, pc, sent } = setUp(true);
    await flush();
    expect(pc.localDescription?.type).toBe('offer');
    expect(sent.offers).toEqual([]);
    peer.start();
    await flush();
    expect(sent.offers).toEqual([pc.localDescription?.sdp]);
  });

  it('leaves the candidates found before the offer went out to the offer, and sends those after', async () => {
    const { peer, pc, sent } = setUp(true);
    await flush();
    pc.gather('candidate:early');
    await flush();
    expect(sent.candidates).toEqual([]);
    peer.start();
    await flush();
    pc.gather('candidate:late');
    await flush();
    expect(sent.candidates).toEqual(['candidate:late']);
  });

  it("sends the callee's candidates as it gathers them, with their mid and ufrag", async () => {
    const { peer, pc, sent } = setUp(false);
    await peer.handleOffer('remote-offer');
    pc.gather('candidate:host');
    await flush();
    expect(sent.candidates).toEqual(['candidate:host']);
  });

  it('ignores an answer it did not ask for', async () => {
    const { peer, pc } = setUp(true);
    await peer.handleAnswer('stray');
    expect(pc.remoteDescription).toBeNull();
  });

  it('gives up with webrtc-failed when the offer cannot be made, and closes', async () => {
    const { peer, pc, events, sent } = setUp(true, { failOffer: true });
    await flush();
    expect(events.failed).toHaveBeenCalledExactlyOnceWith('webrtc-failed');
    expect(pc.closed).toBe(true);
    peer.start();
    await flush();
    expect(sent.offers).toEqual([]);
  });
});

describe('CallPeer connection health', () => {
  it('says connected once, the first time', async () => {
    const { pc, events } = setUp(true);
    pc.moveTo('connecting');
    pc.moveTo('connected');
    expect(events.connected).toHaveBeenCalledTimes(1);
    expect(events.connection).not.toHaveBeenCalled();
  });

  it('shows disconnected, then after the wait reconnecting with an ICE restart offer, then ok', async () => {
    const { peer, pc, events } = setUp(true);
    peer.start();
    await flush();
    pc.moveTo('connected');
    pc.moveTo('disconnected');
    expect(events.connection).toHaveBeenLastCalledWith('disconnected');
    await vi.advanceTimersByTimeAsync(CALL_TIMERS.disconnectWaitMs - 1);
    expect(pc.offers).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(events.connection).toHaveBeenLastCalledWith('reconnecting');
    expect(pc.offers.at(-1)).toEqual({ iceRestart: true });
    pc.moveTo('connected');
    expect(events.connection).toHaveBeenLastCalledWith('ok');
    await vi.advanceTimersByTimeAsync(CALL_TIMERS.iceRestartTimeoutMs);
    expect(events.failed).not.toHaveBeenCalled();
  });

  it('needs no restart when the connection comes back by itself within the wait', async () => {
    const { pc, events } = setUp(true);
    pc.moveTo('connected');
    pc.moveTo('disconnected');
    await vi.advanceTimersByTimeAsync(CALL_TIMERS.disconnectWaitMs / 2);
    pc.moveTo('connected');
    await vi.advanceTimersByTimeAsync(CALL_TIMERS.disconnectWaitMs);
    expect(events.connection.mock.calls.map(([connection]) => connection)).toEqual(['disconnected', 'ok']);
    expect(pc.offers.filter((offer) => offer.iceRestart)).toEqual([]);
  });

  it('restarts at once when ICE fails, and fails the call when the restart does not work in time', async () => {
    const { pc, events } = setUp(true);
    pc.moveTo('connected');
    pc.moveTo('failed');
    await flush();
    expect(events.connection).toHaveBeenLastCalledWith('reconnecting');
    expect(pc.offers.at(-1)).toEqual({ iceRestart: true });
    await vi.advanceTimersByTimeAsync(CALL_TIMERS.iceRestartTimeoutMs);
    expect(events.failed).toHaveBeenCalledExactlyOnceWith('peer-connection-failed');
    expect(pc.closed).toBe(true);
  });

  it("as the callee waits for the caller's restart offer instead of offering", async () => {
    const { pc, events } = setUp(false);
    pc.moveTo('connected');
    pc.moveTo('failed');
    expect(events.connection).toHaveBeenLastCalledWith('reconnecting');
    expect(pc.offers).toEqual([]);
  });

  it('fails with peer-connection-failed when the first connection never comes up', () => {
    const { pc, events } = setUp(true);
    pc.moveTo('connecting');
    pc.moveTo('failed');
    expect(events.failed).toHaveBeenCalledExactlyOnceWith('peer-connection-failed');
  });

  it('reports nothing after close', async () => {
    const { peer, pc, events } = setUp(true);
    peer.close();
    pc.moveTo('connected');
    expect(events.connected).not.toHaveBeenCalled();
  });
});

describe('CallPeer microphone', () => {
  it('mutes by disabling the sent track, and keeps the mute on a recovered track', async () => {
    const { peer, pc, track } = setUp(true);
    peer.setMuted(true);
    expect(track.enabled).toBe(false);
    const recovered = new FakeTrack();
    await peer.replaceTrack(recovered as unknown as MediaStreamTrack);
    expect(pc.senders[0]?.track).toBe(recovered);
    expect(recovered.enabled).toBe(false);
    peer.setMuted(false);
    expect(recovered.enabled).toBe(true);
  });

  it('muted, turns the sender off (nothing sent, not even silence); push-to-talk only silences the track', async () => {
    const { peer, pc, track } = setUp(true);
    const sender = pc.senders[0];
    peer.setMuted(true);
    peer.setMuted(false);
    peer.setMuted(true);
    await flush();
    expect(sender?.encoding.active).toBe(false);
    peer.setMuted(false);
    await flush();
    expect(sender?.encoding.active).toBe(true);
    peer.setTransmitting(false);
    await flush();
    expect(track.enabled).toBe(false);
    expect(sender?.encoding.active).toBe(true);
  });

  it('turns off, once it has one, the sender of a callee who muted before the offer came', async () => {
    const { peer, pc } = setUp(false, { withMicrophone: false });
    peer.setMuted(true);
    await peer.handleOffer('remote-offer');
    await flush();
    expect(pc.transceivers[0]?.sender.encoding.active).toBe(false);
  });
});
