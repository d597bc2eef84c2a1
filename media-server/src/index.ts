// The public API of @voice/media-server. Nothing here imports mediasoup at load time: the library
// is loaded by WorkerPool.create() once MEDIASOUP_WORKER_BIN is set (see mediasoupLoader.ts).

export { Announcer, type AnnouncerOptions } from './Announcer.ts';
export { routerMediaCodecs } from './codecs.ts';
export { DEBIAN_WORKER_BIN, loadMediaConfig, type MediaConfig, type MediaEnv } from './config.ts';
export { InvalidStateError, MediaConfigError } from './errors.ts';
export { webRtcListenIps } from './listenIps.ts';
export { MediaServer, type MediaServerOptions } from './MediaServer.ts';
export type { PortRange } from './portRanges.ts';
export {
  RTC_ERROR,
  RTC_MAX_MESSAGE_BYTES,
  type RtcAuthenticator,
  type RtcIdentity,
  RtcServer,
  type RtcServerOptions,
} from './RtcServer.ts';
export type {
  Logger,
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
