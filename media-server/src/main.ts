// The media server as a process of its own (MEDIA_SERVER=external on the API): a thin shell that
// wires the bus (Redis), the MediaServer and an HTTP server whose only WebSocket path is /rtc.
// The API embeds the same MediaServer by default, started the same way.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { ObservedBus, RedisBus, RedisLink } from '@voice/bus';
import { MEDIA_SOCKET_PATH } from '@voice/protocol';
import { routeUpgrades } from '@voice/signalling';
import { loadMediaConfig, type MediaConfig } from './config.ts';
import { MediaConfigError } from './errors.ts';
import { answerHealth } from './health.ts';
import { MediaServer } from './MediaServer.ts';
import { registerMediaMetrics } from './metrics.ts';
import { answerMetrics, busMetrics, createMetricsRegistry, startMetricsListener } from './processMetrics.ts';
import { RedisSpentRoomTokens } from './spentRoomTokens.ts';

const logger = {
  debug: (message: string) => console.debug(`media server: ${message}`),
  info: (message: string) => console.info(`media server: ${message}`),
  warn: (message: string) => console.warn(`media server: ${message}`),
  error: (message: string) => console.error(`media server: ${message}`),
};

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

let config: MediaConfig;
try {
  config = loadMediaConfig();
} catch (error) {
  if (!(error instanceof MediaConfigError)) throw error;
  fail(error.message);
}
if (!config.redisUrl) {
  fail(
    'REDIS_URL: required for a media server of its own: it announces itself to the API processes over Redis',
  );
}

if (!config.secret) {
  fail('MEDIA_SECRET: required for a media server of its own: the API signs room tokens with it');
}
const secret = config.secret;

const link = await RedisLink.connect(config.redisUrl, logger).catch((error: Error) => fail(error.message));
const registry = createMetricsRegistry();
const bus = new ObservedBus(
  await RedisBus.create(link, `${config.redisPrefix}bus:`, logger),
  busMetrics(registry),
);

let media: MediaServer;
try {
  // Spent room tokens in Redis too: a restart of this process does not make them good again.
  const spentTokens = new RedisSpentRoomTokens(link, config.redisPrefix);
  media = await MediaServer.create({ config, bus, logger, url: config.publicUrl, secret, spentTokens });
} catch (error) {
  fail(`media server: could not start mediasoup workers: ${(error as Error).message}`);
}

registerMediaMetrics(registry, media);
// On METRICS_PORT without a token, or below on this port for a bearer of METRICS_TOKEN.
const { metrics: metricsConfig } = config;
const metricsListener =
  metricsConfig.port === null
    ? null
    : await startMetricsListener(registry, metricsConfig.port, metricsConfig.host);

/** From SIGTERM or SIGINT on: not ready, so an orchestrator sends no one new. */
let closing = false;

// Plain HTTP answers the health checks (and /metrics with METRICS_TOKEN); upgrades go to /rtc or get 404.
const http = createServer((request, response) => {
  if (metricsConfig.token !== null && (request.url ?? '').split('?')[0] === '/metrics') {
    answerMetrics(registry, request, response, metricsConfig.token).catch(() => response.destroy());
    return;
  }
  if (answerHealth(request, response, { media, redis: link, closing: () => closing })) return;
  response.writeHead(404, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ code: 'NOT_FOUND' }));
});
routeUpgrades(http, { [MEDIA_SOCKET_PATH]: media.rtc.endpoint });
http.listen(config.port, config.host);
await once(http, 'listening');

const { workers } = media.load;
const announced = config.announcedIp ? `, announcing ${config.announcedIp}` : '';
logger.info(
  `${workers} mediasoup worker(s), RTC ports ${config.rtcMinPort}-${config.rtcMaxPort}, ` +
    `listening on ${config.listenIp}${announced}; ${MEDIA_SOCKET_PATH} on ${config.host}:${config.port}, ` +
    `announced as ${config.publicUrl} (id ${media.id})`,
);

// SIGTERM (an orchestrator's stop, a rolling update) drains first: the members move to the
// rooms' new places and nobody's room ends; the process exits once they left, or after
// MEDIA_DRAIN.deadlineMs. SIGINT (Ctrl-C) closes at once.
const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
  closing = true;
  if (signal === 'SIGTERM') {
    logger.info(`${signal} received, draining`);
    await media.drain();
  }
  logger.info(`${signal === 'SIGTERM' ? 'drained' : `${signal} received`}, closing`);
  await media.close();
  http.closeAllConnections();
  http.close();
  await metricsListener?.close();
  await bus.close();
  await link.close();
  process.exit(0);
};
process.once('SIGINT', (signal) => void shutdown(signal));
process.once('SIGTERM', (signal) => void shutdown(signal));
