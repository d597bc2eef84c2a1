/**
 * Loudest-K forwarding in Chromium: a room whose `loudest` is 1, four people each playing their
 * own speech recording. A listener receives one voice at a time (not the two that talk), the
 * speaking rings show only voices that talk, and when the forwarded voice goes quiet the other
 * one is heard. The exact choice (K loudest, hysteresis, bounded consumers) is tested without a
 * browser in media-server/src/LoudestK.room.test.ts.
 */
import type { Page } from '@playwright/test';
import {
  apiCall,
  type CallBrowser,
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
 * How many of `members` `page` receives at once: sampled `samples` times, `everyMs` apart, the
 * count of members whose bytes grew by half a voice's worth (Opus near 32 kbit/s: 4 bytes a
 * millisecond) or more in each.
 */
async function voicesAtOnce(
  page: Page,
  members: Person[],
  samples: number,
  everyMs: number,
): Promise<number[]> {
  const counts: number[] = [];
  let before = await roomAudio(page);
  for (let i = 0; i < samples; i++) {
    await page.waitForTimeout(everyMs);
    const now = await roomAudio(page);
    counts.push(
      members.filter((member) => (now[member.id]?.bytes ?? 0) - (before[member.id]?.bytes ?? 0) > 2 * everyMs)
        .length,
    );
    before = now;
  }
  return counts;
}

test('with loudest 1, a listener receives one of two voices at a time, and the other when it goes quiet', async ({
  baseURL,
  launchCallBrowser,
}) => {
  if (!baseURL) throw new Error('no baseURL');
  test.setTimeout(240_000);
  const names = ['Alice', 'Bob', 'Carol', 'Dave'];
  const people = await Promise.all(names.map((name) => createPerson(baseURL, name)));
  const [alice, bob] = people as [Person, Person];
  const roomName = `Town hall ${Date.now().toString(36)}`;
  await apiCall(baseURL, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: alice.token,
    body: { name: roomName, type: 'public', loudest: 1 },
  });
  const browsers: CallBrowser[] = [];
  for (const speaker of ['alice', 'bob', 'carol', 'dave'] as Speaker[]) {
    browsers.push(await launchCallBrowser({ speaker, baseURL }));
  }
  const [pa, pb, pc, pd] = browsers.map((browser) => browser.page) as [Page, Page, Page, Page];
  for (const [index, page] of [pa, pb, pc, pd].entries()) {
    await openRooms(page, people[index] as Person);
    await joinFromList(page, roomName);
  }
  for (const page of [pa, pb, pc, pd]) await expect(page.locator('li.participant')).toHaveCount(4);
  // Carol and Dave only listen.
  await setMuted(pc, true);
  await setMuted(pd, true);
  await setMuted(pb, true);

  // Alice alone talks: everyone hears her.
  for (const page of [pb, pc, pd]) await expectHearing(page, [alice]);

  // Alice and Bob talk: each of them hears the other, and a listener one of them at a time.
  await setMuted(pb, false);
  await expectHearing(pa, [bob]);
  await expectHearing(pb, [alice]);
  for (const page of [pc, pd]) {
    // Short samples, so that a switch between the two (a pause between words frees the place,
    // more often on a busy machine whose fake microphones stutter) spans few of them.
    const counts = await voicesAtOnce(page, [alice, bob], 30, 200);
    // Both at once only in samples that span a switch: with every voice forwarded, all would.
    expect(counts.filter((count) => count === 2).length, `samples with both: ${counts}`).toBeLessThanOrEqual(
      12,
    );
    expect(counts.some((count) => count === 1)).toBe(true);
    // The rings show only people who talk.
    await expect(
      page.locator('li.participant[data-speaking="true"]').filter({ hasText: /Carol|Dave/ }),
    ).toHaveCount(0);
  }

  // Alice goes quiet: the listeners hear Bob, and receive nothing more of her.
  await setMuted(pa, true);
  for (const page of [pc, pd]) {
    await expectHearing(page, [bob]);
    const before = (await roomAudio(page))[alice.id]?.bytes ?? 0;
    await page.waitForTimeout(2000);
    expect(((await roomAudio(page))[alice.id]?.bytes ?? 0) - before).toBeLessThan(1000);
  }
  await expect(participant(pc, 'Alice')).toHaveAttribute('data-muted', 'true');
});
