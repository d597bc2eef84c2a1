import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Bus, MemoryBus } from './Bus.ts';
import { defineChannel } from './Channel.ts';
import { mediaAnnounceChannel } from './channels.ts';
import { RedisBus } from './RedisBus.ts';
import { RedisLink } from './RedisLink.ts';
import { MemoryLogger } from './testing/logger.ts';
import { RedisProcess } from './testing/RedisProcess.ts';

const pings = defineChannel('pings', z.object({ n: z.number().int() }));

type TestBus = Bus & { publishRaw(channel: string, raw: string): Promise<void> };

// The same behaviour from the in-process bus and the Redis one.
const kinds: Array<[string, (logger: MemoryLogger) => Promise<{ bus: TestBus; close(): Promise<void> }>]> = [
  ['MemoryBus', async (logger) => ({ bus: new MemoryBus(logger), close: async () => {} })],
  [
    'RedisBus',
    async (logger) => {
      const link = await RedisLink.connect(redis.url, logger);
      const bus = await RedisBus.create(link, `bus-test:${Math.random()}:`, logger);
      return {
        bus,
        async close() {
          await bus.close();
          await link.close();
        },
      };
    },
  ],
];

let redis: RedisProcess;
beforeAll(async () => {
  redis = await RedisProcess.start();
});
afterAll(() => redis.stop());

describe.each(kinds)('%s', (_name, make) => {
  it('bus.publish() reaches every subscriber of the channel, parsed and typed', async () => {
    const logger = new MemoryLogger();
    const { bus, close } = await make(logger);
    try {
      const a: number[] = [];
      const b: number[] = [];
      await bus.subscribe(pings, (m) => a.push(m.n));
      const off = await bus.subscribe(pings, (m) => b.push(m.n));
      await bus.publish(pings, { n: 1 });
      await expect.poll(() => [a, b]).toEqual([[1], [1]]);
      await off();
      await bus.publish(pings, { n: 2 });
      await expect.poll(() => a).toEqual([1, 2]);
      expect(b).toEqual([1]);
    } finally {
      await close();
    }
  });

  it('a message of the wrong shape is dropped with a log line, and the next one still arrives', async () => {
    const logger = new MemoryLogger();
    const { bus, close } = await make(logger);
    try {
      const heard: unknown[] = [];
      await bus.subscribe(pings, (m) => heard.push(m));
      await bus.subscribe(mediaAnnounceChannel, (m) => heard.push(m));
      for (const raw of ['null', '42', '"x"', '[1]', '{"n":"1"}', '{', '{"n":1.5}', '\u0000']) {
        await bus.publishRaw('pings', raw);
      }
      await bus.publishRaw('media-servers', JSON.stringify({ id: 'm', url: 'http://evil/x', load: {} }));
      await bus.publish(pings, { n: 7 });
      await expect.poll(() => heard).toEqual([{ n: 7 }]);
      const drops = logger.lines.filter((l) => l.level === 'warn' && l.message.startsWith('bus: dropped'));
      expect(drops).toHaveLength(9);
      expect(drops.at(-1)?.fields).toMatchObject({ channel: 'media-servers' });
    } finally {
      await close();
    }
  });

  it('a handler that throws does not keep the message from the others', async () => {
    const logger = new MemoryLogger();
    const { bus, close } = await make(logger);
    try {
      const heard: number[] = [];
      await bus.subscribe(pings, () => {
        throw new Error('boom');
      });
      await bus.subscribe(pings, (m) => heard.push(m.n));
      await bus.publish(pings, { n: 3 });
      await expect.poll(() => heard).toEqual([3]);
    } finally {
      await close();
    }
  });
});
