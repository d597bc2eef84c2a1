/**
 * Loudest-K forwarding in Chromium: a room whose `loudest` is 2, six people each playing their
 * own speech recording, who start talking at staggered times. With three talking, a listener
 * receives two voices at a time (not the three), its speaking rings show only voices it
 * receives, and when the forwarded voices go quiet the others are heard. The exact choice (K
 * loudest, hysteresis, bounded consumers) is tested without a browser in
 * media-server/src/LoudestK.room.test.ts.
 */
import type { Page } from '@playwright/test';
import {
  apiCall,
  createPerson,
  expectHearing,
  joinFromList,
  openRooms,
  type Person,
  roomAudio,
  type Speaker,
} from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';
import { expect, test } from '../support/callBrowser.ts';

const participant = (page: Page, name: string) => page.locator('li.participant').filter({ hasText: name });

async function setMuted(page: Page, muted: boolean): Promise<void> {
  const button = page.getByRole('button', { name: muted ? 'Mute microphone' : 'Unmute microphone' });
  if (await button.isVisible()) await button.click();
  await expect(
    page.getByRole('button', { name: muted ? 'Unmute microphone' : 'Mute microphone' }),
  ).toBeVisible();
}

/**
 * Which of `members` `page` receives at once: sampled `samples` times, `everyMs` apart, the
 * names of members whose bytes grew by half a voice's worth (Opus near 32 kbit/s: 4 bytes a
 * millisecond) or more in each; with the names whose speaking ring is on at each sample's end.
 */
async function voicesAtOnce(
  page: Page,
  members: Person[],
  samples: number,
  everyMs: number,
): Promise<{ received: string[][]; rings: string[][] }> {
  const received: string[][] = [];
  const rings: string[][] = [];
  let before = await roomAudio(page);
  for (let i = 0; i < samples; i++) {
    await page.waitForTimeout(everyMs);
    const now = await roomAudio(page);
    received.push(
      members
        .filter((member) => (now[member.id]?.bytes ?? 0) - (before[member.id]?.bytes ?? 0) > 2 * everyMs)
        .map((member) => member.displayName),
    );
    rings.push(await ringed(page));
    before = now;
  }
  return { received, rings };
}

/** The names whose speaking ring is on in `page`. */
async function ringed(page: Page): Promise<string[]> {
  const tiles = page.locator('li.participant[data-speaking="true"] .participant__name');
  return (await tiles.allInnerTexts()).map((name) => name.trim());
}

/** The app's voice settings without noise suppression: six browsers share two cores here. */
const PLAIN_VOICE = JSON.stringify({
  noiseSuppression: false,
  echoCancellation: false,
  autoGainControl: false,
});

test('with loudest 2, a listener receives two of three voices at a time, its rings show them, and the others when they go quiet', async ({
  baseURL,
  launchCallBrowser,
}) => {
  if (!baseURL) throw new Error('no baseURL');
  test.setTimeout(300_000);
  const voices: Speaker[] = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
  const names = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank'];
  const people = await Promise.all(names.map((name) => createPerson(baseURL, name)));
  const [alice, bob, carol, dave] = people as [Person, Person, Person, Person];
  const roomName = `Town hall ${Date.now().toString(36)}`;
  await apiCall(baseURL, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: alice.token,
    body: { name: roomName, type: 'public', loudest: 2 },
  });
  const pages: Page[] = [];
  for (const [index, speaker] of voices.entries()) {
    const { page } = await launchCallBrowser({ speaker, baseURL });
    await page.addInitScript((voice) => localStorage.setItem('voiceSettings', voice), PLAIN_VOICE);
    await openRooms(page, people[index] as Person);
    await joinFromList(page, roomName);
    // Everyone arrives muted but Alice: the voices start one after another.
    if (index > 0) await setMuted(page, true);
    pages.push(page);
  }
  const [pa, pb, pc, pd, pe, pf] = pages as [Page, Page, Page, Page, Page, Page];
  for (const page of pages) await expect(page.locator('li.participant')).toHaveCount(6);

  // Alice alone talks: everyone hears her. Then Bob: two voices, both heard.
  for (const page of [pb, pd]) await expectHearing(page, [alice]);
  await setMuted(pb, false);
  for (const page of [pd, pe]) await expectHearing(page, [alice, bob]);

  // Carol too: three talk, and a listener receives two at a time.
  await setMuted(pc, false);
  await expectHearing(pa, [carol]);
  for (const page of [pd, pe, pf]) {
    // Short samples, so that a switch (a pause between words frees a place, more often on a
    // busy machine whose fake microphones stutter) spans few of them.
    const { received, rings } = await voicesAtOnce(page, [alice, bob, carol], 30, 200);
    const counts = received.map((names) => names.length);
    // All three at once only in samples that span a switch: with every voice forwarded, all would.
    expect(counts.filter((count) => count === 3).length, `samples with three: ${counts}`).toBeLessThanOrEqual(
      12,
    );
    expect(counts.some((count) => count === 2)).toBe(true);
    // The rings show at most the two voices this listener receives, only of people who talk,
    // and (but across a switch, which a sample may span) voices it received in that sample.
    for (const ring of rings) {
      expect(ring.length, `rings ${ring}`).toBeLessThanOrEqual(2);
      for (const name of ring) expect(['Alice', 'Bob', 'Carol']).toContain(name);
    }
    const apart = rings.filter((ring, i) => ring.some((name) => !received[i]?.includes(name)));
    expect(
      apart.length,
      `rings ${JSON.stringify(rings)}, received ${JSON.stringify(received)}`,
    ).toBeLessThanOrEqual(12);
    expect(rings.some((ring) => ring.length > 0)).toBe(true);
  }

  // Alice and Bob go quiet: the listeners hear Carol, and receive nothing more of them.
  await setMuted(pa, true);
  await setMuted(pb, true);
  for (const page of [pd, pe, pf]) {
    await expectHearing(page, [carol]);
    const before = await roomAudio(page);
    await page.waitForTimeout(2000);
    const after = await roomAudio(page);
    for (const quiet of [alice, bob]) {
      expect((after[quiet.id]?.bytes ?? 0) - (before[quiet.id]?.bytes ?? 0)).toBeLessThan(1000);
    }
  }
  await expect(participant(pe, 'Alice')).toHaveAttribute('data-muted', 'true');

  // Dave, who listened, talks: the others hear him beside Carol.
  await setMuted(pd, false);
  for (const page of [pe, pf]) await expectHearing(page, [carol, dave]);
});
