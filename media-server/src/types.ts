// mediasoup's types, imported for the type checker only: a value import here would load mediasoup
// before MEDIASOUP_WORKER_BIN is set (see mediasoupLoader.ts).
export type {
  ActiveSpeakerObserver,
  AudioLevelObserver,
  AudioLevelObserverVolume,
  Consumer,
  DtlsParameters,
  PlainTransport,
  Producer,
  Router,
  RtpCapabilities,
  RtpCodecCapability,
  RtpParameters,
  Transport,
  TransportListenIp,
  WebRtcTransport,
  Worker,
  WorkerLogLevel,
} from 'mediasoup/lib/types';

/** Where the media server writes its own log lines; `console` and the API's logger both fit. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}
