// @voice/media-server/testing: a real media server and its members for tests and benchmarks, apart
// from the package's public API so that nothing in production loads protoo-client or test secrets.

export {
  MediaServerChild,
  type MediaServerChildOptions,
  TEST_PROCESS_MEDIA_SECRET,
} from './MediaServerChild.ts';
export { signRoomToken, TEST_MEDIA_SECRET } from './roomTokens.ts';
export { opusPacket, opusRtpParameters, RtpSocket, ssrcOf, TEST_OPUS_PAYLOAD_TYPE } from './rtp.ts';
export {
  join,
  type TestListener,
  TestMediaServer,
  type TestMediaServerOptions,
  type TestSpeaker,
  until,
} from './TestMediaServer.ts';
export { handshakeStatus, type Refusal, TestMember } from './TestMember.ts';
