/**
 * An RTCPeerConnection stand-in for unit tests of CallPeer's logic (timers, queueing, SDP
 * edits): records what it was asked and lets the test move its connection state. The real
 * connection is exercised by the Playwright call tests.
 */

interface Description {
  type: 'offer' | 'answer';
  sdp: string;
}

export const FAKE_SDP =
  'v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10\r\n';

export interface FakeSender {
  track: FakeTrack | null;
  replaceTrack(track: FakeTrack): Promise<void>;
  /** Its one encoding, as setParameters() left it. */
  encoding: { active: boolean };
  getParameters(): { encodings: { active: boolean }[] };
  setParameters(parameters: { encodings: { active: boolean }[] }): Promise<void>;
}

export interface FakeTransceiver {
  direction: RTCRtpTransceiverDirection;
  currentDirection: RTCRtpTransceiverDirection | null;
  sender: FakeSender;
  receiver: { track: { kind: string } };
}

function fakeSender(track: FakeTrack | null): FakeSender {
  const sender: FakeSender = {
    track,
    replaceTrack: async (next) => {
      sender.track = next;
    },
    encoding: { active: true },
    getParameters: () => ({ encodings: [{ ...sender.encoding }] }),
    setParameters: async ({ encodings }) => {
      sender.encoding = { ...(encodings[0] as { active: boolean }) };
    },
  };
  return sender;
}

export class FakeTrack {
  enabled = true;
  readonly kind = 'audio';
}

export class FakePeerConnection extends EventTarget {
  connectionState: RTCPeerConnectionState = 'new';
  signalingState: RTCSignalingState = 'stable';
  localDescription: Description | null = null;
  remoteDescription: Description | null = null;
  readonly offers: RTCOfferOptions[] = [];
  readonly candidates: RTCIceCandidateInit[] = [];
  readonly senders: FakeSender[] = [];
  readonly transceivers: FakeTransceiver[] = [];
  closed = false;
  failOffer = false;
  /** setRemoteDescription of an offer throws, as for an SDP the browser cannot parse. */
  failRemoteOffer = false;

  constructor(readonly configuration: RTCConfiguration) {
    super();
  }

  addTrack(track: FakeTrack): unknown {
    const sender = fakeSender(track);
    this.senders.push(sender);
    this.transceivers.push({
      direction: 'sendrecv',
      currentDirection: null,
      sender,
      receiver: { track: { kind: 'audio' } },
    });
    return sender;
  }

  getTransceivers(): FakeTransceiver[] {
    return this.transceivers;
  }

  async createOffer(options: RTCOfferOptions = {}): Promise<Description> {
    if (this.failOffer) throw new Error('createOffer failed');
    this.offers.push(options);
    return { type: 'offer', sdp: FAKE_SDP };
  }

  async createAnswer(): Promise<Description> {
    return { type: 'answer', sdp: FAKE_SDP };
  }

  async setLocalDescription(description: Description): Promise<void> {
    this.localDescription = description;
    this.signalingState = description.type === 'offer' ? 'have-local-offer' : 'stable';
  }

  async setRemoteDescription(description: Description): Promise<void> {
    if (description.type === 'offer' && this.failRemoteOffer) throw new Error('setRemoteDescription failed');
    // An offer's audio with no local track to pair it with makes a receive-only transceiver.
    if (description.type === 'offer' && this.transceivers.length === 0) {
      this.transceivers.push({
        direction: 'recvonly',
        currentDirection: null,
        sender: fakeSender(null),
        receiver: { track: { kind: 'audio' } },
      });
    }
    this.remoteDescription = description;
    this.signalingState = description.type === 'offer' ? 'have-remote-offer' : 'stable';
  }

  async addIceCandidate(candidate: RTCIceCandidateInit): Promise<void> {
    this.candidates.push(candidate);
  }

  close(): void {
    this.closed = true;
    this.connectionState = 'closed';
  }

  /** Moves the connection state as the browser would, telling listeners. */
  moveTo(state: RTCPeerConnectionState): void {
    this.connectionState = state;
    this.dispatchEvent(new Event('connectionstatechange'));
  }

  /** The other party's audio track arrived (as setRemoteDescription does in a browser). */
  receiveTrack(stream: MediaStream): void {
    this.dispatchEvent(Object.assign(new Event('track'), { streams: [stream], track: null }));
  }

  /** A local ICE candidate gathered. */
  gather(candidate: string): void {
    const event = Object.assign(new Event('icecandidate'), {
      candidate: { candidate, sdpMid: '0', sdpMLineIndex: 0, usernameFragment: 'u' },
    });
    this.dispatchEvent(event);
  }
}

/** A MediaStream stand-in holding one fake audio track. */
export function fakeStream(track = new FakeTrack()): MediaStream {
  return { getAudioTracks: () => [track], getTracks: () => [track] } as unknown as MediaStream;
}
