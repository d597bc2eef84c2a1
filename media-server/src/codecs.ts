import type { RtpCodecCapability } from './types.ts';

/**
 * Codecs a new router offers, as fresh objects on every call: mediasoup's createRouter() fills in
 * defaults on the objects it is given, so a shared constant would be mutated (or throw, if frozen).
 *
 * The product is voice only, so Opus alone: a router without video codecs makes mediasoup refuse a
 * video producer instead of forwarding it. Two channels is how Opus is always signalled in SDP
 * (RFC 7587), whatever the capture. In-band FEC hides lost packets on poor links and DTX sends
 * next to nothing during silence, which is most of a group call; the router offers both, so the
 * clients' consumers are told to expect them.
 */
export function routerMediaCodecs(): RtpCodecCapability[] {
  return [
    {
      kind: 'audio',
      mimeType: 'audio/opus',
      clockRate: 48000,
      channels: 2,
      parameters: { useinbandfec: 1, usedtx: 1 },
    },
  ];
}
