import type { RtpCodecCapability } from './types.ts';

/**
 * Codecs a new router offers, as fresh objects on every call: mediasoup's createRouter() fills in
 * defaults on the objects it is given, so a shared constant would be mutated (or throw, if frozen).
 *
 * The product is voice only, so Opus alone: a router without video codecs makes mediasoup refuse a
 * video producer instead of forwarding it. Two channels is how Opus is always signalled in SDP
 * (RFC 7587), whatever the capture; FEC and DTX are negotiated per producer by the client.
 */
export function routerMediaCodecs(): RtpCodecCapability[] {
  return [
    {
      kind: 'audio',
      mimeType: 'audio/opus',
      clockRate: 48000,
      channels: 2,
    },
  ];
}
