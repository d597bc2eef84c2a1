/**
 * The load tester's participants (loadtest/src/participants) against the real app: four people
 * (two speaking, two listening muted), two pages a browser, join a room by its link and stay 10 s.
 * Every one joins, hears a speaker, and is sampled every second with packets and jitter; a call
 * pair connects through the app's call button and Accept, and each end hears the other.
 */
import { apiCall, befriend, createPerson, PEER_CONNECTIONS } from '@voice/browser-bots';
import { Generator, joinRoom, runCallPairs, runRoomParticipants } from '@voice/loadtest/participants';
import { ROOM_ROUTES } from '@voice/protocol';
import { expect, test } from '../support/fixtures.ts';

test.describe('load-test participants', () => {
  test.setTimeout(180_000);

  test('four in a room, two a browser: all join, hear a speaker, and are sampled each second', async ({
    baseURL,
  }, testInfo) => {
    if (!baseURL) throw new Error('no baseURL');
    const accounts = [];
    for (const name of ['Speaker One', 'Speaker Two', 'Listener One', 'Listener Two']) {
      accounts.push(await createPerson(baseURL, name));
    }
    const [admin] = accounts;
    const { room } = await apiCall<{ room: { id: string } }>(baseURL, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: admin?.token,
      body: { name: `Load ${Date.now().toString(36)}`, type: 'public' },
    });
    const progress: number[] = [];
    const outcome = await runRoomParticipants({
      url: baseURL,
      roomId: room.id,
      accounts,
      speakers: 2,
      perBrowser: 2,
      rampPerSec: 2,
      durationMs: 10_000,
      onProgress: (snapshot) => progress.push(snapshot.joined),
    });
    await testInfo.attach('results.json', {
      body: JSON.stringify(outcome, null, 1),
      contentType: 'application/json',
    });

    expect(outcome.participants.map((p) => [p.role, p.error])).toEqual([
      ['speaker', null],
      ['speaker', null],
      ['listener', null],
      ['listener', null],
    ]);
    // Speakers in one browser, listeners in another.
    expect(outcome.participants.map((p) => p.browser)).toEqual([0, 0, 1, 1]);
    const speakerIds = new Set(accounts.slice(0, 2).map((a) => a.id));
    for (const p of outcome.participants) {
      expect(p.joinMs, p.name).toBeGreaterThan(0);
      expect(p.firstAudioMs, p.name).toBeGreaterThanOrEqual(p.joinMs ?? 0);
      const steady = p.samples.filter((s) => s.joined);
      // A second whose sampling is still running (a busy machine) is skipped, not queued.
      expect(steady.length, p.name).toBeGreaterThanOrEqual(7);
      const last = steady.at(-1);
      expect(last?.packetsReceived, p.name).toBeGreaterThan(300);
      expect(last?.jitterMs, p.name).not.toBeNull();
      expect(last?.rttMs, p.name).not.toBeNull();
      // Energy comes from the speakers (by their user ids), none from the muted listeners.
      const heardFrom = Object.entries(last?.energyBySpeaker ?? {}).filter(([, energy]) => energy > 0.01);
      expect(heardFrom.length, p.name).toBeGreaterThan(0);
      for (const [from] of heardFrom) expect(speakerIds.has(from), `${p.name} heard ${from}`).toBe(true);
      // One sample a second, in order.
      const gaps = p.samples.slice(1).map((s, i) => s.t - (p.samples[i]?.t ?? 0));
      for (const gap of gaps) expect(gap).toBeGreaterThan(500);
      if (p.role === 'speaker') expect(steady.at(-1)?.outboundKbps, p.name).toBeGreaterThan(5);
    }
    // The two speakers' pages share a browser and its one context, yet are two people: each
    // page keeps its own token, and each hears the other by that other's user id.
    const [one, two] = outcome.participants;
    expect(Object.keys(one?.samples.at(-1)?.energyBySpeaker ?? {})).toContain(accounts[1]?.id);
    expect(Object.keys(two?.samples.at(-1)?.energyBySpeaker ?? {})).toContain(accounts[0]?.id);
    expect(Math.max(...progress)).toBe(4);
    expect(outcome.generator.length).toBeGreaterThanOrEqual(10);
    for (const sample of outcome.generator) {
      expect(sample.cores).toBeGreaterThan(0);
      expect(sample.rssMb).toBeGreaterThan(50);
    }
  });

  test("two listeners in one browser: each its own storage and person, a microphone that captures nothing, only the app's connections sampled", async ({
    baseURL,
  }) => {
    if (!baseURL) throw new Error('no baseURL');
    const admin = await createPerson(baseURL, 'Room Owner');
    const one = await createPerson(baseURL, 'Listener A');
    const two = await createPerson(baseURL, 'Listener B');
    const { room } = await apiCall<{ room: { id: string } }>(baseURL, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: admin.token,
      body: { name: `Pages ${Date.now().toString(36)}`, type: 'public' },
    });
    const generator = new Generator({ baseURL, perBrowser: 2 });
    try {
      const a = await joinRoom({ generator, account: one, roomId: room.id, role: 'listener' });
      const b = await joinRoom({ generator, account: two, roomId: room.id, role: 'listener' });
      expect([a.error, b.error]).toEqual([null, null]);
      expect(a.browser).toBe(b.browser);
      for (const [participant, account] of [
        [a, one],
        [b, two],
      ] as const) {
        const seen = await participant.page.evaluate(
          (key) => ({
            token: localStorage.getItem('token'),
            states: (window as unknown as Record<string, RTCPeerConnection[]>)[key]?.map(
              (pc) => pc.connectionState,
            ),
          }),
          PEER_CONNECTIONS,
        );
        expect(seen.token).toBe(account.token);
        // What the samples read (all but closed ones, such as mediasoup-client's probe of the
        // browser's capabilities): the room's two transports, both connected; the silent
        // microphone's connection, which never connects, is not among them.
        expect(seen.states?.filter((state) => state !== 'closed')).toEqual(['connected', 'connected']);
        // A receiver's track, which nothing feeds: muted from the start, unlike a capture.
        const microphone = await participant.page.evaluate(async () => {
          const [track] = (await navigator.mediaDevices.getUserMedia({ audio: true })).getAudioTracks();
          return { muted: track?.muted, label: track?.label };
        });
        expect(microphone.muted, JSON.stringify(microphone)).toBe(true);
      }
      // Both are in the room as the two people they are.
      await a.page.evaluate(() => {
        document.documentElement.style.display = '';
      });
      for (const name of ['Listener A', 'Listener B']) {
        await expect(a.page.locator('li.participant').filter({ hasText: name })).toHaveCount(1);
      }
    } finally {
      await generator.close();
    }
  });

  test("joins that fail carry the app's own words: a password prompt, an unknown room", async ({
    baseURL,
  }) => {
    if (!baseURL) throw new Error('no baseURL');
    const admin = await createPerson(baseURL, 'Admin');
    const guest = await createPerson(baseURL, 'Guest');
    const name = `Locked ${Date.now().toString(36)}`;
    const { room } = await apiCall<{ room: { id: string } }>(baseURL, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: admin.token,
      body: { name, type: 'public', password: 'load-test-secret' },
    });
    const locked = await runRoomParticipants({
      url: baseURL,
      roomId: room.id,
      accounts: [guest],
      speakers: 0,
      perBrowser: 1,
      rampPerSec: 1,
      durationMs: 0,
    });
    expect(locked.participants.map((p) => [p.joinMs, p.error])).toEqual([[null, `Password for ${name}`]]);
    const unknown = await runRoomParticipants({
      url: baseURL,
      roomId: '00000000-0000-4000-8000-000000000000',
      accounts: [guest],
      speakers: 0,
      perBrowser: 1,
      rampPerSec: 1,
      durationMs: 0,
    });
    expect(unknown.participants.map((p) => [p.joinMs, p.firstAudioMs, p.error])).toEqual([
      [null, null, 'Room not found'],
    ]);
  });

  test('a call pair: the callee accepts, both ends connect and hear each other', async ({ baseURL }) => {
    if (!baseURL) throw new Error('no baseURL');
    const caller = await createPerson(baseURL, 'Caller');
    const callee = await createPerson(baseURL, 'Callee');
    await befriend(baseURL, caller, callee);
    const outcome = await runCallPairs({
      url: baseURL,
      pairs: [[caller, callee]],
      perBrowser: 1,
      rampPerSec: 1,
      durationMs: 5_000,
    });
    expect(outcome.participants.map((p) => [p.role, p.error])).toEqual([
      ['caller', null],
      ['callee', null],
    ]);
    const [a, b] = outcome.participants;
    for (const [end, other] of [
      [a, callee.id],
      [b, caller.id],
    ] as const) {
      expect(end?.joinMs).toBeGreaterThan(0);
      expect(end?.firstAudioMs).not.toBeNull();
      const last = end?.samples.filter((s) => s.joined).at(-1);
      expect(last?.packetsReceived).toBeGreaterThan(100);
      expect(last?.energyBySpeaker[other]).toBeGreaterThan(0.01);
    }
  });
});
