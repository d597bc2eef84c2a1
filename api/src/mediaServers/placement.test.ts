import { MemoryBus, mediaAnnounceChannel } from '@voice/bus';
import { MEDIA_ANNOUNCE, type MediaServerLoad } from '@voice/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.ts';
import { MediaServers } from './MediaServers.ts';

// Rooms go to the media server whose workers carry the least: members and consumers, not the
// count of rooms (a room of 300 is not one unit of load).

const opened: Array<{ bus: MemoryBus; servers: MediaServers }> = [];
afterEach(async () => {
  for (const { bus, servers } of opened.splice(0)) {
    await servers.close();
    await bus.close();
  }
});

async function heard(loads: Record<string, MediaServerLoad>): Promise<MediaServers> {
  const logger = createLogger('error', 'test');
  const bus = new MemoryBus(logger);
  const servers = await MediaServers.create(bus, logger);
  opened.push({ bus, servers });
  for (const [id, load] of Object.entries(loads)) {
    await bus.publish(mediaAnnounceChannel, { id, url: `ws://${id}.media.test/rtc`, load });
  }
  return servers;
}

describe('MediaServers.settled', () => {
  it('is false until a server announces itself, or until an announce interval and a quarter pass without any', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const quiet = await heard({});
      expect(quiet.settled).toBe(false);
      vi.setSystemTime(Date.now() + MEDIA_ANNOUNCE.intervalMs * 1.25 - 1);
      expect(quiet.settled).toBe(false);
      vi.setSystemTime(Date.now() + 1);
      expect(quiet.settled).toBe(true);

      const announced = await heard({ one: { workers: 1, routers: 0, members: 0, consumers: 0 } });
      expect(announced.settled).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('MediaServers.leastLoaded()', () => {
  it('weighs members and consumers per worker, not rooms', async () => {
    const servers = await heard({
      big: { workers: 2, routers: 1, members: 300, consumers: 1800 },
      small: { workers: 2, routers: 6, members: 12, consumers: 40 },
    });
    expect(servers.leastLoaded()?.id).toBe('small');
  });

  it("weighs each worker's measured CPU: of two that carry the same, the idler; a busy one loses to more members", async () => {
    const same = await heard({
      hot: { workers: 2, routers: 2, members: 40, consumers: 200, cpu: 1.4 },
      cool: { workers: 2, routers: 2, members: 40, consumers: 200, cpu: 0.2 },
    });
    expect(same.leastLoaded()?.id).toBe('cool');
    // Twice the people on workers at a tenth of a core each beat workers near a full core.
    const busy = await heard({
      busy: { workers: 2, routers: 1, members: 50, consumers: 150, cpu: 1.8 },
      calm: { workers: 2, routers: 1, members: 100, consumers: 300, cpu: 0.2 },
    });
    expect(busy.leastLoaded()?.id).toBe('calm');
    // An older media server says nothing of its CPU: counted as idle, by what it carries.
    const older = await heard({
      old: { workers: 1, routers: 1, members: 10, consumers: 20 },
      measured: { workers: 1, routers: 1, members: 10, consumers: 20, cpu: 0.5 },
    });
    expect(older.leastLoaded()?.id).toBe('old');
  });

  it('weighs by workers: the same load on twice the workers is half as much', async () => {
    const servers = await heard({
      one: { workers: 1, routers: 2, members: 40, consumers: 200 },
      four: { workers: 4, routers: 4, members: 100, consumers: 500 },
    });
    expect(servers.leastLoaded()?.id).toBe('four');
  });

  it('weighs a server that announces only routers by those', async () => {
    const servers = await heard({
      older: { workers: 1, routers: 1 },
      busier: { workers: 1, routers: 3 },
    });
    expect(servers.leastLoaded()?.id).toBe('older');
  });
});
