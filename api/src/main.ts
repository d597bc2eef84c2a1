/** The API process: config, services, HTTP server, clean shutdown. */
import { loadMediaConfig, MediaConfigError, MediaServer } from '@voice/media-server';
import { MEDIA_SOCKET_PATH } from '@voice/protocol';
import { ConfigError, loadConfig } from './config.ts';
import { isPublicHost } from './http/addresses.ts';
import { createLogger } from './logger.ts';
import { mediaSecretKey } from './rooms/roomToken.ts';
import { startServer } from './server.ts';
import { createServices } from './services.ts';
import { StartupError, waitForServices } from './startup/waitForServices.ts';

async function main(): Promise<void> {
  // Everything this process creates is its own: DATA_DIR holds secrets, and some of it is
  // written by libraries with modes of their own (PGlite's files, for one).
  process.umask(0o077);
  let config: ReturnType<typeof loadConfig>;
  let mediaConfig: ReturnType<typeof loadMediaConfig>;
  try {
    config = loadConfig();
    mediaConfig = loadMediaConfig();
  } catch (error) {
    if (error instanceof ConfigError || error instanceof MediaConfigError) {
      // One line per bad variable, each naming it and what it must be.
      for (const problem of error.problems) process.stderr.write(`${problem}\n`);
      process.exit(1);
    }
    throw error;
  }
  const publicHost = new URL(config.publicUrl).hostname;
  if (
    config.mediaServer === 'embedded' &&
    isPublicHost(publicHost) &&
    mediaConfig.announcedIp === undefined
  ) {
    // mediasoup would put the container's or host's private address in its ICE candidates.
    throw new StartupError(
      `MEDIA_ANNOUNCED_IP: must be set when PUBLIC_URL is public (${publicHost}): set it to this server's public IP address, or browsers cannot reach the media of group rooms`,
    );
  }
  const logger = createLogger(config.logLevel);
  await waitForServices(config, logger);
  const services = await createServices(config, logger);
  // One media server in the same process tree unless the operator runs them apart.
  const media =
    config.mediaServer === 'embedded'
      ? await MediaServer.create({
          config: mediaConfig,
          bus: services.bus,
          logger,
          url: embeddedMediaUrl(config.publicUrl),
          // The key room tokens are signed with: MEDIA_SECRET, or one derived from the JWT secret.
          secret: mediaSecretKey(config).export(),
          spentTokens: services.spentRoomTokens,
        })
      : null;
  const server = await startServer(services, config.port, config.host, { media });
  logger.info(`listening on http://${config.host}:${config.port} (public URL ${config.publicUrl})`, {
    database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir}/db)`,
    bus: config.redisUrl ? 'redis' : 'in-process',
    mail: config.smtpUrl ? 'smtp' : `outbox (${config.dataDir}/outbox)`,
    media: media ? `${media.load.workers} embedded mediasoup worker(s)` : 'external (placed by announcement)',
  });

  // Sockets close with 1001 (browsers reconnect at once, to another node if there is one),
  // requests in flight get their answers, then the mediasoup workers and the services close.
  const shutdown = async (signal: string) => {
    logger.info(`${signal}: shutting down`);
    try {
      await server.close();
      await media?.close();
      await services.close();
    } catch (error) {
      logger.error('shutdown failed', { error });
      process.exit(1);
    }
    process.exit(0);
  };
  // On demand, for operators and load tests: memory after a full collection (with --expose-gc).
  process.on('SIGUSR2', () => {
    (globalThis as { gc?: () => void }).gc?.();
    const usage = process.memoryUsage();
    process.stdout.write(`${JSON.stringify({ memory: usage, sockets: server.socket.connectionCount })}\n`);
  });
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

/** The embedded media server's `/rtc` is on the app's own origin. */
function embeddedMediaUrl(publicUrl: string): string {
  const url = new URL(MEDIA_SOCKET_PATH, publicUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

main().catch((error: unknown) => {
  // What an operator fixes in .env gets one line; anything else its stack, for a bug report.
  if (error instanceof StartupError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
