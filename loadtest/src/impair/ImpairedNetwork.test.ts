/**
 * The impaired networks with real namespaces, iptables and the relay (run as root, as CI does):
 * a UDP echo on the host's loopback, probed from inside a namespace, sees the asked loss, delay
 * and rate, and close() leaves no namespace, interface, rule or script behind.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImpairSpec } from '../results/types.ts';
import { ImpairedNetwork } from './ImpairedNetwork.ts';
import { run } from './system.ts';
import { type Echo, median, probe, startEcho } from './testing/udpProbe.ts';

let echo: Echo;
const networks: ImpairedNetwork[] = [];

async function network(spec: ImpairSpec, index: number): Promise<ImpairedNetwork> {
  const created = await ImpairedNetwork.create(spec, index);
  networks.push(created);
  return created;
}

beforeAll(async () => {
  echo = await startEcho();
});

afterAll(async () => {
  for (const created of networks) await created.close();
  echo.close();
});

describe('ImpairedNetwork', () => {
  it('loses about the asked share of UDP each way, and counts it', async () => {
    const lossy = await network({ lossPct: 10 }, 0);
    const result = await probe(lossy.namespace, echo, { count: 2000, intervalMs: 2, bytes: 100 });
    const measured = await lossy.measured();
    expect(measured.lossPct).toBeGreaterThan(5);
    expect(measured.lossPct).toBeLessThan(15);
    expect(measured.upstream.offered).toBe(2000);
    // A datagram and its echo each cross the loss once: about 1 − 0.9² = 19% of round trips fail.
    const roundTripLoss = 100 * (1 - result.received / result.sent);
    expect(roundTripLoss).toBeGreaterThan(10);
    expect(roundTripLoss).toBeLessThan(28);
  }, 60_000);

  it('adds the asked delay to the round trip, and measures it', async () => {
    const plain = await network({}, 1);
    const delayed = await network({ delayMs: 80 }, 2);
    const options = { count: 100, intervalMs: 20, bytes: 100 };
    const base = median((await probe(plain.namespace, echo, options)).rttsMs);
    const result = await probe(delayed.namespace, echo, options);
    expect(result.received).toBe(100);
    const added = median(result.rttsMs) - base;
    expect(added).toBeGreaterThan(70);
    expect(added).toBeLessThan(110);
    const measured = await delayed.measured();
    expect(measured.delayMs).toBeGreaterThan(70);
    expect(measured.delayMs).toBeLessThan(110);
    expect(measured.lossPct).toBe(0);
  }, 60_000);

  it('spreads the round trips by the jitter', async () => {
    const jittery = await network({ delayMs: 50, jitterMs: 30 }, 3);
    const result = await probe(jittery.namespace, echo, { count: 200, intervalMs: 20, bytes: 100 });
    const sorted = [...result.rttsMs].sort((a, b) => a - b);
    const spread =
      (sorted[Math.floor(sorted.length * 0.9)] as number) -
      (sorted[Math.floor(sorted.length * 0.1)] as number);
    // Uniform ±30 ms: the 10th to 90th percentile spans about 48 ms.
    expect(spread).toBeGreaterThan(25);
    expect(median(result.rttsMs)).toBeGreaterThan(30);
  }, 60_000);

  it('holds the throughput to about the asked rate', async () => {
    const narrow = await network({ rateKbit: 128 }, 4);
    // 1000-byte datagrams every 10 ms offer 800 kbit/s for 3 s.
    const result = await probe(narrow.namespace, echo, {
      count: 300,
      intervalMs: 10,
      bytes: 1000,
      drainMs: 1500,
    });
    const kbit = (result.bytesReceived * 8) / result.spanMs;
    expect(kbit).toBeGreaterThan(64);
    expect(kbit).toBeLessThan(160);
    const measured = await narrow.measured();
    expect(measured.upstream.lost).toBeGreaterThan(0);
  }, 60_000);

  it('close() removes the namespace, the veth, the host rules and the wrapper, and can run twice', async () => {
    const closing = await network({ lossPct: 5, delayMs: 10 }, 5);
    const wrapper = closing.launchWrapper();
    expect(existsSync(wrapper)).toBe(true);
    expect(await run('ip', ['netns', 'list'])).toContain(closing.namespace);
    expect(await run('iptables', ['-t', 'nat', '-S'])).toContain(closing.namespace);
    await closing.close();
    await closing.close();
    expect(await run('ip', ['netns', 'list'])).not.toContain(closing.namespace);
    expect(await run('ip', ['link'])).not.toContain(closing.names.hostInterface);
    expect(await run('iptables', ['-S'])).not.toContain(closing.namespace);
    expect(await run('iptables', ['-t', 'nat', '-S'])).not.toContain(closing.namespace);
    expect(existsSync(wrapper)).toBe(false);
  }, 60_000);
});
