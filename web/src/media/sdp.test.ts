import { describe, expect, it } from 'vitest';
import { withOpusParameters } from './sdp.ts';

const OFFER = [
  'v=0',
  'o=- 1 2 IN IP4 127.0.0.1',
  's=-',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0',
  'a=rtpmap:111 opus/48000/2',
  'a=rtcp-fb:111 transport-cc',
  'a=fmtp:111 minptime=10;useinbandfec=0',
  'a=rtpmap:63 red/48000/2',
  'a=fmtp:63 111/111',
  'a=rtpmap:9 G722/8000',
  'a=rtpmap:0 PCMU/8000',
  '',
].join('\r\n');

describe('withOpusParameters', () => {
  it('turns on in-band FEC and DTX on the Opus fmtp line, keeping its other parameters', () => {
    const sdp = withOpusParameters(OFFER);
    expect(sdp).toContain('a=fmtp:111 minptime=10;useinbandfec=1;usedtx=1\r\n');
  });

  it('leaves other codecs, other lines and the CRLF line endings alone', () => {
    const sdp = withOpusParameters(OFFER);
    expect(sdp).toContain('a=fmtp:63 111/111\r\n');
    expect(sdp.replace('minptime=10;useinbandfec=1;usedtx=1', 'minptime=10;useinbandfec=0')).toBe(OFFER);
  });

  it('adds an fmtp line after the rtpmap of an Opus payload that has none', () => {
    const sdp = withOpusParameters('m=audio 9 RTP/AVP 96\na=rtpmap:96 opus/48000/2\na=sendrecv\n');
    expect(sdp).toBe(
      'm=audio 9 RTP/AVP 96\na=rtpmap:96 opus/48000/2\na=fmtp:96 useinbandfec=1;usedtx=1\na=sendrecv\n',
    );
  });

  it('returns an SDP without Opus unchanged', () => {
    const sdp = 'm=audio 9 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n';
    expect(withOpusParameters(sdp)).toBe(sdp);
  });
});
