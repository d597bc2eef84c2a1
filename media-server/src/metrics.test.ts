import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryBus } from '@voice/bus';
import { MEDIA_SOCKET_PATH } from '@voice/protocol';
import { routeUpgrades } from '@voice/signalling';
import type { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMediaConfig } from './config.ts';
import { MediaServer } from './MediaServer.ts';
import { registerMediaMetrics } from './metrics.ts';
import { createMetricsRegistry } from './processMetrics.ts';
import { signRoomToken, TEST_MEDIA_SECRET } from './testing/roomTokens.ts';
import { opusRtpParameters } from './testing/rtp.ts';
import { TestMember } from './testing/TestMember.ts';
import type { Logger, RtpCapabilities } from './types.ts';

// A real media server (one real mediasoup worker, protoo over WebSocket) whose metrics are read
// the way Prometheus reads them: the registry's text.

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start() {
  const media = await MediaServer.create({
    config: loadMediaConfig({
      MEDIASOUP_WORKER_BIN: process.env.MEDIASOUP_WORKER_BIN,
      MEDIA_NUM_WORKERS: '1',
      RTC_MIN_PORT: '48100',
      RTC_MAX_PORT: '48199',
      MEDIA_LISTEN_IP: '127.0.0.1',
      MEDIA_LOG_LEVEL: 'error',
    }),
    bus: new MemoryBus(quiet),
    logger: quiet,
    url: 'ws://127.0.0.1/rtc',
    secret: TEST_MEDIA_SECRET,
  });
  const registry = createMetricsRegistry();
  registerMediaMetrics(registry, media);
  const http = createServer((_request, response) => response.end());
  routeUpgrades(http, { [MEDIA_SOCKET_PATH]: media.rtc.endpoint });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  cleanups.push(async () => {
    await media.close();
    http.closeAllConnections();
    http.close();
  });
  const { port } = http.address() as AddressInfo;
  const connect = async (roomId: string, peerId: string) => {
    const query = new URLSearchParams({ roomId, peerId, token: signRoomToken(roomId, peerId) });
    const member = await TestMember.connect(`ws://127.0.0.1:${port}${MEDIA_SOCKET_PATH}?${query}`);
    cleanups.push(() => member.close());
    const rtpCapabilities = (await member.request('getRouterRtpCapabilities', {})) as RtpCapabilities;
    await member.request('join', { displayName: peerId, device: { name: 'test' }, rtpCapabilities });
    return member;
  };
  return { media, registry, connect };
}

/** The value of one series in the registry's text (`name{labels}`), or undefined. */
async function sample(registry: Registry, series: string): Promise<number | undefined> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('registerMediaMetrics()', () => {
  it('counts rooms, peers, producers and consumers as members join, speak and leave', async () => {
    const { media, registry, connect } = await start();
    expect(await sample(registry, 'voice_media_rooms')).toBe(0);
    expect(await sample(registry, 'voice_media_producers')).toBe(0);

    const speaker = await connect('room-1', 'speaker');
    const hearer = await connect('room-1', 'hearer');
    const room = media.rooms.get('room-1');
    if (!room) throw new Error('no room');
    // The hearer's receiving transport first, so the speaker's voice is consumed as it arrives.
    await room.createPlainTransport('hearer', { producing: false, consuming: true });
    const sending = await room.createPlainTransport('speaker', { producing: true, consuming: false });
    await speaker.request('produce', {
      transportId: sending.id,
      kind: 'audio',
      rtpParameters: opusRtpParameters(1111),
    });
    await hearer.until(() => hearer.consumers.length === 1, 'the speaker consumed');

    expect(await sample(registry, 'voice_media_rooms')).toBe(1);
    expect(await sample(registry, 'voice_media_peers')).toBe(2);
    expect(await sample(registry, 'voice_media_producers')).toBe(1);
    expect(await sample(registry, 'voice_media_consumers')).toBe(1);
    expect(await sample(registry, 'voice_media_workers')).toBe(1);
    const [worker] = media.pool.workers;
    if (!worker) throw new Error('no worker');
    expect(await sample(registry, `voice_media_worker_routers{worker_pid="${worker.pid}"}`)).toBe(1);
    // Starting a worker and routing a room costs it some CPU; its memory is well above nothing.
    const cpu = await sample(registry, `voice_media_worker_cpu_seconds_total{worker_pid="${worker.pid}"}`);
    expect(cpu).toBeGreaterThan(0);
    const rss = await sample(registry, `voice_media_worker_max_rss_bytes{worker_pid="${worker.pid}"}`);
    expect(rss).toBeGreaterThan(1024 * 1024);

    // The speaker leaving takes their producer and the hearer's consumer with it.
    speaker.close();
    await hearer.notification('peersChanged', (data) => data.left.length > 0);
    expect(await sample(registry, 'voice_media_peers')).toBe(1);
    expect(await sample(registry, 'voice_media_producers')).toBe(0);
    expect(await sample(registry, 'voice_media_consumers')).toBe(0);

    // The last one leaving closes the room.
    hearer.close();
    await hearer.untilClosed();
    await expect.poll(() => sample(registry, 'voice_media_rooms')).toBe(0);
    expect(await sample(registry, 'voice_media_peers')).toBe(0);
  });

  it('follows a replacement worker and counts the death', async () => {
    const { media, registry, connect } = await start();
    const [first] = media.pool.workers;
    if (!first) throw new Error('no worker');
    const replaced = once(media.pool, 'workerreplaced');
    process.kill(first.pid, 'SIGKILL');
    const [worker] = (await replaced) as [{ pid: number }];
    expect(await sample(registry, 'voice_media_worker_deaths_total')).toBe(1);
    const series = (await registry.metrics())
      .split('\n')
      .filter((l) => l.startsWith('voice_media_worker_cpu'));
    // Only the living worker is reported; the dead one's series is gone.
    expect(series).toEqual([expect.stringContaining(`worker_pid="${worker.pid}"`)]);

    // Objects on the new worker are counted too.
    const speaker = await connect('room-2', 'speaker');
    const room = media.rooms.get('room-2');
    if (!room) throw new Error('no room');
    const sending = await room.createPlainTransport('speaker', { producing: true, consuming: false });
    await speaker.request('produce', {
      transportId: sending.id,
      kind: 'audio',
      rtpParameters: opusRtpParameters(2222),
    });
    expect(await sample(registry, 'voice_media_producers')).toBe(1);
  });
});
