/**
 * The call tests' own parts, proven with real ones: each person's fake microphone plays their
 * own recording, two browsers send that audio to each other through a real coturn when the API
 * forces the relay (TURN_FORCE_RELAY), and a refused microphone is refused.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import {
  type CallBrowser,
  SPEAKERS,
  SPEECH_FORMAT,
  speechFile,
  waitForAudioGrowth,
} from '@voice/browser-bots';
import { type TurnCredentialsResponse, WEBRTC_ROUTES } from '@voice/protocol';
import type { ApiServer } from '../support/ApiServer.ts';
import { expect, test } from '../support/callBrowser.ts';
import { newUser, registerViaApi } from '../support/fixtures.ts';
import { RelayStack } from '../support/RelayStack.ts';

let relay: RelayStack;
let api: ApiServer;

// biome-ignore lint/correctness/noEmptyPattern: Playwright hooks must destructure their fixtures.
test.beforeAll(async ({}, testInfo) => {
  relay = await RelayStack.start(testInfo, 'call-infra');
  api = relay.api;
});

test.afterAll(async () => {
  await relay?.stop();
});

/** Format and length of a WAV file, from its RIFF chunks. */
function wavInfo(wav: Buffer) {
  let offset = 12;
  let format: { sampleRate: number; channels: number; bitsPerSample: number; pcm: boolean } | undefined;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      format = {
        pcm: wav.readUInt16LE(offset + 8) === 1,
        channels: wav.readUInt16LE(offset + 10),
        sampleRate: wav.readUInt32LE(offset + 12),
        bitsPerSample: wav.readUInt16LE(offset + 22),
      };
    } else if (id === 'data' && format) {
      const seconds = size / (format.sampleRate * format.channels * (format.bitsPerSample / 8));
      return { ...format, seconds };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('not a WAV file with fmt and data chunks');
}

/**
 * Listens to the microphone for `ms` through a WebAudio analyser: the mean loudness (RMS) and
 * the median pitch of the voiced frames, by autocorrelation over 70-400 Hz.
 */
function listenToMicrophone(
  page: Page,
  ms: number,
): Promise<{ rms: number; pitchHz: number; voiced: number }> {
  return page.evaluate(async (duration) => {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const context = new AudioContext();
    await context.resume();
    const analyser = context.createAnalyser();
    analyser.fftSize = 2048;
    context.createMediaStreamSource(stream).connect(analyser);
    const frame = new Float32Array(analyser.fftSize);
    const levels: number[] = [];
    const pitches: number[] = [];
    const [minLag, maxLag] = [Math.floor(context.sampleRate / 400), Math.ceil(context.sampleRate / 70)];
    const end = performance.now() + duration;
    while (performance.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 40));
      analyser.getFloatTimeDomainData(frame);
      const energy = frame.reduce((sum, x) => sum + x * x, 0);
      const rms = Math.sqrt(energy / frame.length);
      levels.push(rms);
      if (rms < 0.02) continue;
      let best = { lag: 0, correlation: 0 };
      for (let lag = minLag; lag <= maxLag; lag++) {
        let sum = 0;
        for (let i = 0; i + lag < frame.length; i++) sum += (frame[i] as number) * (frame[i + lag] as number);
        const correlation = sum / energy;
        if (correlation > best.correlation) best = { lag, correlation };
      }
      if (best.correlation > 0.5) pitches.push(context.sampleRate / best.lag);
    }
    for (const track of stream.getTracks()) track.stop();
    await context.close();
    pitches.sort((a, b) => a - b);
    return {
      rms: levels.reduce((sum, x) => sum + x, 0) / levels.length,
      pitchHz: pitches[Math.floor(pitches.length / 2)] ?? 0,
      voiced: pitches.length,
    };
  }, ms);
}

test('each fake microphone plays its own recording: 48 kHz mono speech, a low and a high voice', async ({
  launchCallBrowser,
}) => {
  const files = await Promise.all(SPEAKERS.map((speaker) => speechFile(speaker)));
  const wavs = await Promise.all(files.map((file) => readFile(file)));
  for (const wav of wavs) {
    const info = wavInfo(wav);
    expect(info).toMatchObject({ ...SPEECH_FORMAT, pcm: true });
    expect(info.seconds).toBeGreaterThan(10);
    expect(info.seconds).toBeLessThan(20);
  }
  const digests = wavs.map((wav) => createHash('sha256').update(wav).digest('hex'));
  expect(new Set(digests).size).toBe(SPEAKERS.length);
  // Cached: asking again gives the same file.
  expect(await speechFile('bob')).toBe(files[SPEAKERS.indexOf('bob')]);

  const [bob, alice] = await Promise.all([
    launchCallBrowser({ speaker: 'bob', baseURL: api.url }),
    launchCallBrowser({ speaker: 'alice', baseURL: api.url }),
  ]);
  await Promise.all([bob.page.goto('/api/health'), alice.page.goto('/api/health')]);
  const [heardFromBob, heardFromAlice] = await Promise.all([
    listenToMicrophone(bob.page, 2000),
    listenToMicrophone(alice.page, 2000),
  ]);
  for (const heard of [heardFromBob, heardFromAlice]) {
    expect(heard.rms).toBeGreaterThan(0.03);
    expect(heard.voiced).toBeGreaterThan(5);
  }
  // espeak-ng's low man's voice sits near 80-100 Hz, its high woman's voice above 200 Hz.
  expect(heardFromBob.pitchHz).toBeLessThan(140);
  expect(heardFromAlice.pitchHz).toBeGreaterThan(180);
});

/** In the page: a peer connection with the API's configuration, the microphone, and the remote audio played. */
async function preparePeer(page: Page, rtcConfiguration: TurnCredentialsResponse['rtcConfiguration']) {
  await page.evaluate(async (configuration) => {
    const pc = new RTCPeerConnection(configuration);
    const candidates: RTCIceCandidateInit[] = [];
    pc.addEventListener('icecandidate', ({ candidate }) => {
      if (candidate) candidates.push(candidate.toJSON());
    });
    // Played, as the app plays it: Chromium decodes (and counts energy) only what a media element plays.
    pc.addEventListener('track', ({ streams }) => {
      const audio = new Audio();
      audio.srcObject = streams[0] ?? null;
      void audio.play();
    });
    const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
    for (const track of microphone.getTracks()) pc.addTrack(track, microphone);
    Object.assign(window, { call: { pc, candidates } });
  }, rtcConfiguration);
}

type CallWindow = Window & { call: { pc: RTCPeerConnection; candidates: RTCIceCandidateInit[] } };

/** Every local candidate, once ICE gathering is complete. */
function gatheredCandidates(page: Page): Promise<RTCIceCandidateInit[]> {
  return page.evaluate(async () => {
    const { pc, candidates } = (window as unknown as CallWindow).call;
    while (pc.iceGatheringState !== 'complete') {
      await new Promise((resolve) => pc.addEventListener('icegatheringstatechange', resolve, { once: true }));
    }
    return candidates;
  });
}

async function connect(caller: Page, callee: Page): Promise<void> {
  const offer = await caller.evaluate(async () => {
    const { pc } = (window as unknown as CallWindow).call;
    await pc.setLocalDescription();
    return pc.localDescription?.toJSON() as RTCSessionDescriptionInit;
  });
  const answer = await callee.evaluate(async (description) => {
    const { pc } = (window as unknown as CallWindow).call;
    await pc.setRemoteDescription(description);
    await pc.setLocalDescription();
    return pc.localDescription?.toJSON() as RTCSessionDescriptionInit;
  }, offer);
  await caller.evaluate(
    (description) => (window as unknown as CallWindow).call.pc.setRemoteDescription(description),
    answer,
  );
  const [fromCaller, fromCallee] = await Promise.all([
    gatheredCandidates(caller),
    gatheredCandidates(callee),
  ]);
  const addAll = (candidates: RTCIceCandidateInit[]) =>
    Promise.all(
      candidates.map((candidate) => (window as unknown as CallWindow).call.pc.addIceCandidate(candidate)),
    );
  await Promise.all([caller.evaluate(addAll, fromCallee), callee.evaluate(addAll, fromCaller)]);
}

test('with TURN_FORCE_RELAY, two browsers hear each other through coturn, relay to relay', async ({
  launchCallBrowser,
}) => {
  /** A registered person's configuration from the API, and their peer connection built with it. */
  const join = async ({ page }: CallBrowser) => {
    const token = await registerViaApi(page, newUser('relay'));
    const response = await page.request.get(`/api${WEBRTC_ROUTES.turnCredentials}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(response.status()).toBe(200);
    const { rtcConfiguration } = (await response.json()) as TurnCredentialsResponse;
    expect(rtcConfiguration.iceTransportPolicy).toBe('relay');
    expect(rtcConfiguration.iceServers).toContainEqual({
      urls: relay.coturn.turnUrls.split(','),
      username: expect.any(String),
      credential: expect.any(String),
    });
    await page.goto('/api/health');
    await preparePeer(page, rtcConfiguration);
  };
  const [bob, alice] = await Promise.all([
    launchCallBrowser({ speaker: 'bob', baseURL: api.url }),
    launchCallBrowser({ speaker: 'alice', baseURL: api.url }),
  ]);
  await Promise.all([join(bob), join(alice)]);
  await connect(bob.page, alice.page);

  const heard = await Promise.all(
    [bob, alice].map(({ page }) => waitForAudioGrowth(page, { bytes: 8000, energy: 0.1 })),
  );
  for (const { before, after } of heard) {
    expect(after.packetsReceived).toBeGreaterThan(before.packetsReceived);
    expect(after).toMatchObject({
      connectionState: 'connected',
      localCandidateType: 'relay',
      remoteCandidateType: 'relay',
      mimeType: 'audio/opus',
    });
    expect(after.sdpFmtpLine).toContain('useinbandfec=1');
  }
});

test('a refused microphone: getUserMedia fails with NotAllowedError', async ({ launchCallBrowser }) => {
  const { page } = await launchCallBrowser({ microphone: 'refused', baseURL: api.url });
  await page.goto('/api/health');
  const outcome = await page.evaluate(() =>
    navigator.mediaDevices.getUserMedia({ audio: true }).then(
      () => 'allowed',
      (error: DOMException) => error.name,
    ),
  );
  expect(outcome).toBe('NotAllowedError');
  expect(
    await page.evaluate(async () => (await navigator.permissions.query({ name: 'microphone' })).state),
  ).toBe('denied');
});
