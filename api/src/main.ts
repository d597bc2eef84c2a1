/** The API process: config, services, HTTP server, clean shutdown. */
import { loadMediaConfig, MediaConfigError, WorkerPool } from '@voice/media-server';
import { ConfigError, loadConfig } from './config.ts';
import { startServer } from './http/server.ts';
import { createLogger } from './logger.ts';
import { createServices } from './services.ts';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  let mediaConfig: ReturnType<typeof loadMediaConfig>;
  try {
    config = loadConfig();
    mediaConfig = loadMediaConfig();
  } catch (error) {
    if (error instanceof ConfigError || error instanceof MediaConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const services = await createServices(config, logger);
  // One media server in the same process tree unless the operator runs them apart.
  const media = config.mediaServer === 'embedded' ? await WorkerPool.create(mediaConfig, { logger }) : null;
  const server = await startServer(services, config.port, config.host);
  logger.info(`listening on http://${config.host}:${config.port} (public URL ${config.publicUrl})`, {
    database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir}/db)`,
    bus: config.redisUrl ? 'redis' : 'in-process',
    mail: config.smtpUrl ? 'smtp' : `outbox (${config.dataDir}/outbox)`,
    media: media ? `${media.load.workers} embedded mediasoup worker(s)` : 'external',
  });

  const shutdown = async (signal: string) => {
    logger.info(`${signal}: shutting down`);
    await server.close();
    media?.close();
    await services.close();
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

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
