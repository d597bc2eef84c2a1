/**
 * The load tester's network impairment with real Chromium: Bob's browser runs inside an impaired
 * network namespace (loss by iptables, delay by the tool's UDP relay), reaches the local app on
 * 127.0.0.1 (pages, API and signalling over TCP, media and ICE over UDP through the relay), joins
 * Alice's room and hears her; his received audio shows the asked loss and his round trip the
 * asked delay, and the impairment's own counters agree. Needs root, as `--impair` does.
 */
import {
  apiCall,
  type CallBrowser,
  createPerson,
  expectHearing,
  joinFromList,
  openRooms,
  PEER_CONNECTIONS,
} from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';
import { ImpairedNetwork } from '../../loadtest/src/impair/index.ts';
import { expect, test } from '../support/callBrowser.ts';

const LOSS_PCT = 10;
const DELAY_MS = 80;

test('a participant in an impaired namespace joins a room on the local app, hears it, and sees the asked loss and delay', async ({
  baseURL,
  launchCallBrowser,
}) => {
  if (!baseURL) throw new Error('no baseURL');
  // Two browsers, one of them behind the relay, on a two-core machine that may be busy.
  test.setTimeout(240_000);
  const network = await ImpairedNetwork.create({ lossPct: LOSS_PCT, delayMs: DELAY_MS }, 0);
  let b: CallBrowser | undefined;
  try {
    const alice = await createPerson(baseURL, 'Alice');
    const bob = await createPerson(baseURL, 'Bob');
    const roomName = `Impaired ${Date.now().toString(36)}`;
    await apiCall(baseURL, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: alice.token,
      body: { name: roomName, type: 'public' },
    });
    const a = await launchCallBrowser({ speaker: 'alice', baseURL });
    b = await launchCallBrowser({ speaker: 'bob', baseURL, executablePath: network.launchWrapper() });

    // The app's pages load inside the namespace, through the host's loopback.
    await b.page.goto('/login');
    await expect(b.page.getByRole('button', { name: 'Sign in' })).toBeVisible({ timeout: 30_000 });

    await openRooms(a.page, alice);
    await joinFromList(a.page, roomName);
    await openRooms(b.page, bob);
    await joinFromList(b.page, roomName);
    await expectHearing(b.page, [alice], 30_000);
    await expectHearing(a.page, [bob], 30_000);

    // Ten more seconds of Alice's voice (about 500 packets) for the loss to settle.
    await b.page.waitForTimeout(10_000);
    const received = await b.page.evaluate(async (key) => {
      let packetsReceived = 0;
      let packetsLost = 0;
      let rttSeconds = 0;
      for (const pc of (window as unknown as Record<string, RTCPeerConnection[]>)[key] ?? []) {
        if (pc.connectionState === 'closed') continue;
        for (const stats of (await pc.getStats()).values()) {
          if (stats.type === 'inbound-rtp' && stats.kind === 'audio') {
            packetsReceived += stats.packetsReceived ?? 0;
            packetsLost += stats.packetsLost ?? 0;
          }
          if (stats.type === 'candidate-pair' && stats.nominated && stats.currentRoundTripTime) {
            rttSeconds = Math.max(rttSeconds, stats.currentRoundTripTime);
          }
        }
      }
      return { packetsReceived, packetsLost, rttSeconds };
    }, PEER_CONNECTIONS);
    const lossPct = (100 * received.packetsLost) / (received.packetsReceived + received.packetsLost);
    expect(received.packetsReceived).toBeGreaterThan(300);
    expect(lossPct).toBeGreaterThan(5);
    expect(lossPct).toBeLessThan(15);
    expect(received.rttSeconds * 1000).toBeGreaterThan(DELAY_MS - 10);

    const measured = await network.measured();
    test.info().annotations.push({
      type: 'measured',
      description: `inbound loss ${lossPct.toFixed(1)}%, RTT ${Math.round(received.rttSeconds * 1000)} ms; relay: ${JSON.stringify(measured)}`,
    });
    expect(measured.lossPct).toBeGreaterThan(5);
    expect(measured.lossPct).toBeLessThan(15);
    expect(measured.delayMs).toBeGreaterThan(DELAY_MS - 10);
    expect(measured.delayMs).toBeLessThan(DELAY_MS + 30);
    expect(measured.upstream.offered).toBeGreaterThan(300);
  } finally {
    // The browser first: closing the network kills whatever still runs in it.
    await b?.close();
    await network.close();
  }
});
