/**
 * Two API nodes of one service, for tests of what crosses processes: a TestServer in the
 * test's process and a ChildApi as a separate OS process, sharing the database, a Redis
 * namespace and the signing secret. The local PostgreSQL and Redis unless the environment
 * says otherwise; a test that restarts or pauses Redis passes its own.
 */
import { randomUUID } from 'node:crypto';
import { ChildApi } from './ChildApi.ts';
import { TestServer } from './TestServer.ts';

export const SHARED_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export class TwoNodes {
  private constructor(
    readonly node1: TestServer,
    readonly node2: ChildApi,
    /** What both nodes were started with. */
    readonly env: Readonly<Record<string, string>>,
  ) {}

  /** One more node of the same service, as its own process (for tests that kill one). */
  startAnotherNode(): Promise<ChildApi> {
    return ChildApi.start({ ...this.env, MEDIA_SERVER: 'external' });
  }

  /** `redisUrl` defaults to the shared Redis; `env` adds settings for both nodes. */
  static async start({
    redisUrl = SHARED_REDIS_URL,
    env = {},
  }: {
    redisUrl?: string;
    env?: Record<string, string>;
  } = {}) {
    const shared = {
      DATABASE_URL: SHARED_DATABASE_URL,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: `test:${randomUUID()}:`,
      JWT_SECRET: randomUUID() + randomUUID(),
      ...env,
    };
    let node1: TestServer;
    try {
      node1 = await TestServer.start(shared);
    } catch (error) {
      throw new Error(
        `needs PostgreSQL at ${SHARED_DATABASE_URL} and Redis at ${redisUrl} (set DATABASE_URL and REDIS_URL): ${error}`,
      );
    }
    try {
      return new TwoNodes(node1, await ChildApi.start({ ...shared, MEDIA_SERVER: 'external' }), shared);
    } catch (error) {
      await node1.close();
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.node1.close();
    await this.node2.stop();
  }
}
