// The public API of @voice/media-server. Nothing here imports mediasoup at load time: the library
// is loaded by WorkerPool.create() once MEDIASOUP_WORKER_BIN is set (see mediasoupLoader.ts).

export { Announcer, type AnnouncerOptions } from './Announcer.ts';
export { routerMediaCodecs } from './codecs.ts';
export {
  DEBIAN_WORKER_BIN,
  loadMediaConfig,
  MEDIA_SECRET_MIN_LENGTH,
  type MediaConfig,
  type MediaEnv,
} from './config.ts';
export { InvalidStateError, MediaConfigError, RTC_ERROR, RtcRequestError } from './errors.ts';
export {
  ForwardAll,
  type ForwardingChange,
  type ForwardingPolicy,
  type ForwardingState,
  type SpeakerLevel,
} from './Forwarding.ts';
export { LoudestK, type LoudestKOptions } from './LoudestK.ts';
export { webRtcListenIps } from './listenIps.ts';
export { MediaServer, type MediaServerOptions } from './MediaServer.ts';
export { registerMediaMetrics } from './metrics.ts';
export { Peer, type RtcMember, type TransportUse } from './Peer.ts';
export type { PortRange } from './portRanges.ts';
export {
  answerMetrics,
  bearerMatches,
  busMetrics,
  createMetricsRegistry,
  METRICS_TOKEN_MIN_LENGTH,
  type MetricsConfig,
  type MetricsListener,
  metricsTokenProblems,
  startMetricsListener,
} from './processMetrics.ts';
export { Room, type RoomCloseNotice, type RoomOptions } from './Room.ts';
export { RoomRegistry, type RoomRegistryOptions } from './RoomRegistry.ts';
export {
  RTC_MAX_MESSAGE_BYTES,
  type RtcAdmission,
  type RtcAuthenticator,
  RtcServer,
  type RtcServerOptions,
} from './RtcServer.ts';
export {
  type RoomTokenFor,
  type RoomTokenVerifier,
  roomTokenAuthenticator,
  roomTokenVerifier,
  type SharedSpending,
} from './roomToken.ts';
export { secretFromEnv, urlWithPassword } from './secretFiles.ts';
export { RedisSpentRoomTokens, type SpentRoomTokens } from './spentRoomTokens.ts';
export type {
  Consumer,
  Logger,
  PlainTransport,
  Router,
  RtpCapabilities,
  RtpCodecCapability,
  TransportListenIp,
  WebRtcTransport,
  Worker,
  WorkerLogLevel,
} from './types.ts';
export {
  type WorkerLoad,
  WorkerPool,
  type WorkerPoolEvents,
  type WorkerPoolLoad,
  type WorkerPoolOptions,
} from './WorkerPool.ts';
