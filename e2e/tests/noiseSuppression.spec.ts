/**
 * Noise suppression (issue 19, item 5): Bob's microphone plays speech with silent gaps, all of
 * it in loud white noise (sox). Alice, in the same room, measures what she receives from him
 * with an AnalyserNode: the noise floor (the level in the gaps) is at least 10 dB lower with
 * noise suppression on than off, and his speech still stands out of it with suppression on.
 */

import type { Page } from '@playwright/test';
import {
  apiCall,
  type CallBrowser,
  createPerson,
  expectHearing,
  joinFromList,
  noisySpeechFile,
  openRooms,
  type Person,
} from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';
import { expect, test } from '../support/callBrowser.ts';

/** Each loop of Bob's recording: 4 s of speech, then 2 s of noise alone. */
const SPEECH_SECONDS = 4;
const GAP_SECONDS = 2;
/** Two loops: the quietest tenth of the windows then lies in the gaps. */
const MEASURE_MS = 2 * (SPEECH_SECONDS + GAP_SECONDS) * 1000;

/** Levels (dBFS) of `peerId`'s received audio on `page`, one per ~20 ms window, for `ms`. */
function receivedLevels(page: Page, peerId: string, ms: number): Promise<number[]> {
  return page.evaluate(
    async ([peer, duration]) => {
      const elements = [...document.querySelectorAll<HTMLAudioElement>(`audio[data-peer-id="${peer}"]`)];
      const stream = elements.at(-1)?.srcObject;
      if (!(stream instanceof MediaStream)) throw new Error(`No audio of ${peer} is playing`);
      const context = new AudioContext();
      await context.resume();
      const analyser = context.createAnalyser();
      analyser.fftSize = 1024; // 21 ms at 48 kHz
      context.createMediaStreamSource(stream).connect(analyser);
      const samples = new Float32Array(analyser.fftSize);
      const levels: number[] = [];
      await new Promise<void>((resolve) => {
        const started = performance.now();
        const timer = setInterval(() => {
          analyser.getFloatTimeDomainData(samples);
          let sum = 0;
          for (const sample of samples) sum += sample * sample;
          levels.push(10 * Math.log10(sum / samples.length + 1e-12));
          if (performance.now() - started >= duration) {
            clearInterval(timer);
            resolve();
          }
        }, 20);
      });
      await context.close();
      return levels;
    },
    [peerId, ms] as const,
  );
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** What Alice receives from Bob: the floor (the gaps' level) and the speech's level, in dBFS. */
interface Received {
  floor: number;
  speech: number;
}

test('noise suppression lowers the received noise floor by 10 dB or more, and the speech still arrives', async ({
  baseURL,
  launchCallBrowser,
}) => {
  test.setTimeout(180_000);
  const base = baseURL as string;
  const noisy = await noisySpeechFile('bob', { speechSeconds: SPEECH_SECONDS, gapSeconds: GAP_SECONDS });
  const alice = await createPerson(base, 'Alice');
  const bob = await createPerson(base, 'Bob');
  const roomName = `Noise ${Date.now().toString(36)}`;
  await apiCall(base, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: alice.token,
    body: { name: roomName, type: 'public' },
  });
  const a = await launchCallBrowser({ speaker: 'alice', baseURL: base });
  await openRooms(a.page, alice);
  await joinFromList(a.page, roomName);

  /** Bob joins in a browser of his own with `noiseSuppression`; Alice measures him; he leaves. */
  async function measure(noiseSuppression: boolean): Promise<Received> {
    const b: CallBrowser = await launchCallBrowser({
      baseURL: base,
      args: [`--use-file-for-fake-audio-capture=${noisy}`],
    });
    const warnings: string[] = [];
    b.page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    // The settings as the app keeps them, in place before its scripts run.
    await b.context.addInitScript(
      (settings) => localStorage.setItem('voiceSettings', settings),
      JSON.stringify({ noiseSuppression }),
    );
    await joinAs(b.page, bob, roomName);
    await expectHearing(a.page, [bob]);
    // Chromium's gain control settles within a second or two of the first audio.
    await a.page.waitForTimeout(2000);
    const levels = await receivedLevels(a.page, bob.id, MEASURE_MS);
    await b.close();
    expect(warnings.filter((text) => /noise suppression/i.test(text))).toEqual([]);
    return { floor: percentile(levels, 10), speech: percentile(levels, 95) };
  }

  const off = await measure(false);
  const on = await measure(true);
  console.log(
    `noise floor off ${off.floor.toFixed(1)} dBFS, on ${on.floor.toFixed(1)} dBFS ` +
      `(${(off.floor - on.floor).toFixed(1)} dB lower); speech off ${off.speech.toFixed(1)}, on ${on.speech.toFixed(1)} dBFS`,
  );
  expect(off.floor - on.floor).toBeGreaterThanOrEqual(10);
  // The speech still arrives: well above the floor and at a level one hears.
  expect(on.speech - on.floor).toBeGreaterThanOrEqual(20);
  expect(on.speech).toBeGreaterThan(-40);
});

async function joinAs(page: Page, person: Person, roomName: string): Promise<void> {
  await openRooms(page, person);
  await joinFromList(page, roomName);
}
