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
  PEER_CONNECTIONS,
  type Person,
  roomAudio,
  type Speaker,
} from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';
import { expect, test } from '../support/callBrowser.ts';

// Six Chromiums, each capturing, encoding and playing, on two cores. In two CI runs one page of
// the six went silent for seconds at a time (an in-page timer of 40 ms fired twice in 6 s; in
// the other run a list lacked a name past 10 s), and once a page's room had ended before it was
// asked to mute; run alone on the same machine the test passed every time (1.8-2 min). So the
// whole test may run once more, never more; the failed run's reasons stay in the report.
test.describe.configure({ retries: 1 });

const participant = (page: Page, name: string) => page.locator('li.participant').filter({ hasText: name });

async function setMuted(page: Page, muted: boolean): Promise<void> {
  // Exact names: "Mute microphone" is a part of "Unmute microphone".
  const wanted = page.getByRole('button', {
    name: muted ? 'Unmute microphone' : 'Mute microphone',
    exact: true,
  });
  const button = page.getByRole('button', {
    name: muted ? 'Mute microphone' : 'Unmute microphone',
    exact: true,
  });
  // Six browsers talking on two cores: a click's checks (the button stable over two frames, then
  // hit) waited past 30 s for a starved page's frames in a CI run, so the click event is sent
  // itself; and the panel may redraw between a look and the click (a join tried again), so it is
  // pressed again, as a person would, until it shows the state asked for.
  try {
    await expect(async () => {
      if (await wanted.isVisible()) return;
      await button.dispatchEvent('click', undefined, { timeout: 5000 });
      await expect(wanted).toBeVisible({ timeout: 5000 });
    }).toPass({ timeout: 60_000 });
  } catch (error) {
    // What the page showed instead: its voice panel's state and buttons, any alert, and anything
    // that hides the panel from a role query (an open dialog, an inert or aria-hidden ancestor).
    const shown = await page
      .evaluate(() => ({
        panel: document.querySelector('section.voice-panel')?.getAttribute('data-status') ?? 'no voice panel',
        buttons: [...document.querySelectorAll('section.voice-panel button')].map(
          (button) =>
            `${button.getAttribute('aria-label')}${(button as HTMLButtonElement).disabled ? ' (disabled)' : ''}`,
        ),
        hiddenBy: [...document.querySelectorAll('[inert], [aria-hidden="true"]')]
          .filter((node) => node.contains(document.querySelector('section.voice-panel')))
          .map((node) => node.tagName),
        dialogs: [...document.querySelectorAll('dialog[open], [role="dialog"]')].map(
          (node) => node.getAttribute('aria-label') ?? node.textContent?.slice(0, 80),
        ),
        alerts: [...document.querySelectorAll('[role="alert"], [role="status"]')].map(
          (node) => node.textContent,
        ),
      }))
      .catch((reason: unknown) => String(reason));
    throw new Error(`${muted ? 'mute' : 'unmute'} failed; the page showed ${JSON.stringify(shown)}`, {
      cause: error,
    });
  }
}

/**
 * What `page` receives and rings, polled in the page every `everyMs` for `ms`: how many voices
 * delivered audio in the last 80 ms (a receiver's newest synchronization source: the time of
 * the last frame it played), how many in the last 600 ms, and whose rings are on. Timed by the
 * page's own clock, so a busy machine stretching the polls does not make them count more.
 */
async function voicesAtOnce(page: Page, ms: number, everyMs: number): Promise<Poll[]> {
  return page.evaluate(
    async ({ key, ms, everyMs }) => {
      const polls: { now: number; recent: number; rings: string[] }[] = [];
      const newest = (receiver: RTCRtpReceiver) =>
        Math.max(0, ...receiver.getSynchronizationSources().map((source) => source.timestamp));
      const end = Date.now() + ms;
      while (Date.now() < end) {
        await new Promise((resolve) => setTimeout(resolve, everyMs));
        const receivers = ((window as unknown as Record<string, RTCPeerConnection[]>)[key] ?? [])
          .filter((pc) => pc.connectionState !== 'closed')
          .flatMap((pc) => pc.getReceivers())
          .filter((receiver) => receiver.track.kind === 'audio');
        const now = Date.now();
        const ages = receivers.map((receiver) => now - newest(receiver));
        polls.push({
          now: ages.filter((age) => age < 80).length,
          recent: ages.filter((age) => age < 600).length,
          rings: [
            ...document.querySelectorAll('li.participant[data-speaking="true"] .participant__name'),
          ].map((name) => (name.textContent ?? '').trim()),
        });
      }
      return polls;
    },
    { key: PEER_CONNECTIONS, ms, everyMs },
  );
}

interface Poll {
  /** Voices that delivered audio in the last 80 ms. */
  now: number;
  /** In the last 600 ms: what rings a few levels' messages behind may show. */
  recent: number;
  rings: string[];
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
  // Six browsers joining on two cores: a starved page's join may be tried again (its member gone
  // from the others' lists until it is back), which in a CI run took past 10 s.
  for (const [index, page] of pages.entries()) {
    await expect(page.locator('li.participant'), `${names[index]}'s list`).toHaveCount(6, {
      timeout: 30_000,
    });
  }

  // Alice alone talks: everyone hears her. Then Bob: two voices, both heard.
  for (const page of [pb, pd]) await expectHearing(page, [alice]);
  await setMuted(pb, false);
  for (const page of [pd, pe]) await expectHearing(page, [alice, bob]);

  // Carol too: three talk, and a listener receives two at a time.
  await setMuted(pc, false);
  await expectHearing(pa, [carol]);
  for (const page of [pd, pe, pf]) {
    const polls = await voicesAtOnce(page, 6000, 40);
    const summary = JSON.stringify(polls.map((poll) => [poll.now, poll.recent, poll.rings.length]));
    // Three at once only around a switch (a pause between words frees a place, more often on a
    // busy machine whose fake microphones stutter): with every voice forwarded, most would.
    const three = polls.filter((poll) => poll.now === 3).length;
    console.log(
      `three at once in ${three} of ${polls.length} polls, two in ${polls.filter((poll) => poll.now === 2).length}: ${summary}`,
    );
    expect(three, summary).toBeLessThanOrEqual(polls.length / 2);
    // Two voices at a time: both delivered audio within 600 ms in a good share of the polls (a
    // single forwarded voice would give that only around a switch). Not asked within 80 ms: a
    // starved page plays out in bursts, and a CI run saw no poll with two in 80 ms.
    expect(polls.filter((poll) => poll.recent >= 2).length, summary).toBeGreaterThanOrEqual(polls.length / 4);
    // The rings show at most the two voices this listener receives, only of people who talk,
    // and no more voices than delivered audio a moment ago.
    for (const { rings } of polls) {
      expect(rings.length, `rings ${rings}`).toBeLessThanOrEqual(2);
      for (const name of rings) expect(['Alice', 'Bob', 'Carol']).toContain(name);
    }
    expect(polls.filter((poll) => poll.rings.length > poll.recent).length, summary).toBeLessThanOrEqual(
      polls.length / 4,
    );
    expect(polls.some((poll) => poll.rings.length > 0)).toBe(true);
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
