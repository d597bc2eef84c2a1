/**
 * npm run bench:voice — what noise suppression costs a page (issue 19, item 5), and push-to-talk's
 * delay, in Debian's Chromium against the real API serving the built web app.
 *
 * 1. Latency added. By design: RNNoise takes 480-sample frames at 48 kHz and answers a frame
 *    late (its overlap-add); the app asks its context for 480-sample render quanta
 *    (`renderSizeHint`), so the worklet holds nothing more (with 128-sample quanta it would
 *    hold 448): the worklet itself reports the quantum it got and what it holds. By a
 *    loopback: on the app's origin (its CSP), one capture of the fake microphone (speech, the
 *    call constraints) goes three ways into a recording AudioContext at once: as it is,
 *    through a MediaStream → Web Audio → MediaStream pass-through, and through the app's graph
 *    with the shipped RNNoise worklet and wasm in a context made as the app makes it. The lag
 *    of each against the raw one (cross-correlation) is what it adds; the worklet's own share
 *    is the difference of the two, the rest is the round trip through an AudioContext, which
 *    depends on the machine's audio buffers.
 * 2. CPU. A person alone in a room, sending that speech, with noise suppression off and on
 *    (the voice settings in local storage), in alternating rounds (BENCH_ROUNDS, 2), each a
 *    browser of its own: the CPU time of all its processes (/proc) over BENCH_CPU_SECONDS (20)
 *    after a settling pause, as % of one core. Goal: at most 3% of a core more with it on.
 * 3. Push-to-talk: key-down → first packet with energy at a listener (goal p95 ≤ 150 ms):
 *    BENCH_PTT_TRIALS (20) presses of the backquote by a speaker sending a steady tone, the
 *    listener's page polling the level of the packets it receives every 2 ms.
 *
 * BENCH_PARTS (latency,cpu,ptt) runs some of them. Runs in the database voice_bench (re-created) on the server of DATABASE_URL and a Redis
 * namespace of its own on REDIS_URL; WEB_DIST as bench:call.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  apiCall,
  CallBrowser,
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  createPerson,
  joinFromList,
  openRooms,
  PEER_CONNECTIONS,
  speechFile,
} from '@voice/browser-bots';
import { CALL_AUDIO_CONSTRAINTS, ROOM_ROUTES } from '@voice/protocol';
import { chromium } from 'playwright-core';
import {
  benchSetting,
  ensureWebBuilt,
  KEEP_NAMES_SHIM,
  recreateBenchDatabase,
  report,
  startApi,
} from './harness.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Which parts to run (BENCH_PARTS=latency,cpu,ptt, all by default). */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'latency,cpu,ptt').split(','));
const CPU_SECONDS = Number(process.env.BENCH_CPU_SECONDS ?? 20);
/** After joining: the capture, the worklet and the encoder have started, the gain control settled. */
const SETTLE_MS = 4000;
const GOALS = { extraCpuPercentOfCore: 3, addedLatencyMs: 15, pushToTalkP95Ms: 150 };
/**
 * RNNoise's frame (also its own delay) at 48 kHz, and the name the app's worklet registers
 * (web/src/media/rnnoiseFrames.ts: the bench reads the built files, not the web's sources).
 */
const RNNOISE = { sampleRate: 48_000, frameSamples: 480 };
const RNNOISE_PROCESSOR = 'voice-rnnoise';

const { adminUrl, webDist, env } = benchSetting();
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString());
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

// --- Latency ----------------------------------------------------------------------------------

/** The shipped worklet and wasm files, as the build named them. */
function shippedAssets(): { worklet: string; wasm: string } {
  const assets = path.join(webDist, 'assets');
  const files = readdirSync(assets);
  const worklet = files.find((file) => {
    if (!file.endsWith('.js')) return false;
    const text = readFileSync(path.join(assets, file), 'utf8');
    return text.includes('registerProcessor') && text.includes(RNNOISE_PROCESSOR);
  });
  const wasm = files.find((file) => /^rnnoise_simd-.*\.wasm$/.test(file));
  if (!worklet || !wasm) throw new Error(`The RNNoise worklet or wasm is not in ${assets}`);
  return { worklet: `/assets/${worklet}`, wasm: `/assets/${wasm}` };
}

interface Loopback {
  /** The processing context's baseLatency and outputLatency, ms. */
  contextBaseMs: number;
  contextOutputMs: number;
  /** Lag of the plain MediaStream → Web Audio → MediaStream pass-through, ms. */
  passThroughMs: number;
  /** Lag of the same with the RNNoise worklet inside, ms. */
  rnnoiseMs: number;
  /** Normalized cross-correlation at those lags (near 1: the same signal, shifted). */
  passThroughCorrelation: number;
  rnnoiseCorrelation: number;
  /** What the worklet reported: the context's render quantum and what it holds beyond RNNoise. */
  quantumSamples: number;
  framingDelaySamples: number;
}

/** Runs in the page: see 1. in the header. */
async function loopbackInPage(input: {
  worklet: string;
  wasm: string;
  processor: string;
  constraints: MediaTrackConstraints;
  recordMs: number;
  skipMs: number;
  maxLagMs: number;
}): Promise<Loopback> {
  const capture = await navigator.mediaDevices.getUserMedia({ audio: input.constraints });
  // As web/src/media/noiseSuppression.ts makes it.
  const processing = new AudioContext({
    sampleRate: 48_000,
    latencyHint: 'interactive',
    renderSizeHint: 480,
  } as AudioContextOptions);
  await processing.audioWorklet.addModule(input.worklet);
  const wasmBinary = await (await fetch(input.wasm)).arrayBuffer();
  const source = processing.createMediaStreamSource(capture);
  const rnnoise = new AudioWorkletNode(processing, input.processor, {
    numberOfInputs: 1,
    numberOfOutputs: 1,
    outputChannelCount: [1],
    channelCount: 1,
    channelCountMode: 'explicit',
    processorOptions: { wasmBinary },
  });
  const framing = { quantumSamples: Number.NaN, framingDelaySamples: Number.NaN };
  rnnoise.port.onmessage = (event: MessageEvent) => {
    const message = event.data as {
      type: string;
      message?: string;
      quantumSamples?: number;
      delaySamples?: number;
    };
    if (message.type === 'failed') console.error(`The RNNoise worklet failed: ${message.message}`);
    if (message.type === 'framing') {
      framing.quantumSamples = message.quantumSamples as number;
      framing.framingDelaySamples = message.delaySamples as number;
    }
  };
  const denoised = processing.createMediaStreamDestination();
  denoised.channelCount = 1;
  source.connect(rnnoise).connect(denoised);
  const passed = processing.createMediaStreamDestination();
  passed.channelCount = 1;
  source.connect(passed);
  await processing.resume();

  const recording = new AudioContext({ sampleRate: 48_000 });
  const merger = recording.createChannelMerger(3);
  recording.createMediaStreamSource(capture).connect(merger, 0, 0);
  recording.createMediaStreamSource(passed.stream).connect(merger, 0, 1);
  recording.createMediaStreamSource(denoised.stream).connect(merger, 0, 2);
  const recorder = recording.createScriptProcessor(4096, 3, 1);
  const channels: Float32Array[][] = [[], [], []];
  recorder.onaudioprocess = (event) => {
    for (let c = 0; c < 3; c++) channels[c]?.push(new Float32Array(event.inputBuffer.getChannelData(c)));
  };
  merger.connect(recorder);
  recorder.connect(recording.destination); // its output is silence; connected so that it runs
  await recording.resume();
  await new Promise((resolve) => setTimeout(resolve, input.recordMs));
  recorder.disconnect();
  await Promise.all([recording.close(), processing.close()]);
  for (const track of capture.getTracks()) track.stop();

  const flat = (chunks: Float32Array[] | undefined) => {
    const all = new Float32Array((chunks ?? []).reduce((n, chunk) => n + chunk.length, 0));
    let at = 0;
    for (const chunk of chunks ?? []) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return all;
  };
  const [raw, pass, rnn] = channels.map(flat) as [Float32Array, Float32Array, Float32Array];
  const skip = Math.round((input.skipMs / 1000) * 48_000);
  const maxLag = Math.round((input.maxLagMs / 1000) * 48_000);
  const length = raw.length - skip - maxLag;
  const lagOf = (other: Float32Array) => {
    let best = { lag: 0, correlation: -1 };
    let rawEnergy = 0;
    for (let i = skip; i < skip + length; i++) rawEnergy += (raw[i] as number) ** 2;
    for (let lag = 0; lag <= maxLag; lag++) {
      let sum = 0;
      let energy = 0;
      for (let i = skip; i < skip + length; i++) {
        const value = other[i + lag] as number;
        sum += (raw[i] as number) * value;
        energy += value * value;
      }
      const correlation = sum / Math.sqrt(rawEnergy * energy + 1e-20);
      if (correlation > best.correlation) best = { lag, correlation };
    }
    return best;
  };
  const p = lagOf(pass);
  const r = lagOf(rnn);
  return {
    contextBaseMs: processing.baseLatency * 1000,
    contextOutputMs: processing.outputLatency * 1000,
    passThroughMs: (p.lag / 48_000) * 1000,
    rnnoiseMs: (r.lag / 48_000) * 1000,
    passThroughCorrelation: p.correlation,
    rnnoiseCorrelation: r.correlation,
    ...framing,
  };
}

async function measureLatency(apiUrl: string): Promise<Loopback> {
  const { worklet, wasm } = shippedAssets();
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, `--use-file-for-fake-audio-capture=${await speechFile('bob')}`],
  });
  try {
    const context = await browser.newContext({ baseURL: apiUrl });
    await context.addInitScript({ content: KEEP_NAMES_SHIM });
    const page = await context.newPage();
    // The app's origin, and so its Content-Security-Policy.
    await page.goto('/login');
    await page.locator('body').click(); // a user gesture: the contexts may run
    return await page.evaluate(loopbackInPage, {
      worklet,
      wasm,
      processor: RNNOISE_PROCESSOR,
      constraints: { ...CALL_AUDIO_CONSTRAINTS },
      recordMs: 6000,
      skipMs: 2000,
      maxLagMs: 80,
    });
  } finally {
    await browser.close();
  }
}

// --- CPU --------------------------------------------------------------------------------------

/** Parent pid and CPU ticks (user + system) of `pid`, from /proc; null once it has ended. */
function procStat(pid: string): { parent: number; ticks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

const pids = () => readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));

/** CPU ticks of `root` and all its descendants. */
function treeTicks(root: number): number {
  const stats = new Map<number, { parent: number; ticks: number }>();
  for (const pid of pids()) {
    const stat = procStat(pid);
    if (stat) stats.set(Number(pid), stat);
  }
  let total = 0;
  for (const [pid, { ticks }] of stats) {
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = stats.get(at)?.parent) {
      if (at === root) {
        total += ticks;
        break;
      }
    }
  }
  return total;
}

/** The pid of the Chromium started with `marker` among its flags (the first of those that carry it). */
function browserPid(marker: string): number {
  const marked = pids().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
  const main = marked.find((pid) => !marked.includes(String(procStat(pid)?.parent)));
  if (!main) throw new Error('The benchmark browser was not found in /proc');
  return Number(main);
}

/** % of one core a browser in the room uses, noise suppression `on` or off. */
async function roundCpu(apiUrl: string, roomName: string, on: boolean): Promise<number> {
  const speaker = await createPerson(apiUrl, 'Bob');
  const marker = `--voice-bench-marker=${randomUUID()}`;
  const browser = await CallBrowser.launch({ speaker: 'bob', baseURL: apiUrl, args: [marker] });
  try {
    await browser.context.addInitScript(
      (settings) => localStorage.setItem('voiceSettings', settings),
      JSON.stringify({ noiseSuppression: on }),
    );
    await openRooms(browser.page, speaker);
    await joinFromList(browser.page, roomName);
    await sleep(SETTLE_MS);
    const pid = browserPid(marker);
    const before = treeTicks(pid);
    const started = performance.now();
    await sleep(CPU_SECONDS * 1000);
    const ticks = treeTicks(pid) - before;
    const seconds = (performance.now() - started) / 1000;
    return (ticks / CLOCK_TICKS / seconds) * 100;
  } finally {
    await browser.close();
  }
}

async function measureCpu(apiUrl: string) {
  const owner = await createPerson(apiUrl, 'Alice');
  const roomName = `Voice bench ${Date.now().toString(36)}`;
  await apiCall(apiUrl, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: owner.token,
    body: { name: roomName, type: 'public' },
  });
  const off: number[] = [];
  const on: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    off.push(await roundCpu(apiUrl, roomName, false));
    on.push(await roundCpu(apiUrl, roomName, true));
    console.log(`round ${r + 1}: off ${round(off.at(-1) ?? 0)}%, on ${round(on.at(-1) ?? 0)}% of a core`);
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    rounds: ROUNDS,
    secondsPerRound: CPU_SECONDS,
    offPercentOfCore: off.map((v) => round(v)),
    onPercentOfCore: on.map((v) => round(v)),
    meanOffPercentOfCore: round(mean(off)),
    meanOnPercentOfCore: round(mean(on)),
    extraPercentOfCore: round(mean(on) - mean(off)),
  };
}

// --- Push-to-talk -----------------------------------------------------------------------------

const PTT_TRIALS = Number(process.env.BENCH_PTT_TRIALS ?? 20);

/** A steady tone as the speaker's microphone, so that every key press finds sound to send. */
function toneFile(): string {
  const file = path.join(tmpdir(), 'voice-bench-tone-440.wav');
  execFileSync('sox', [
    '-n',
    '-r',
    '48000',
    '-c',
    '1',
    '-b',
    '16',
    file,
    'synth',
    '30',
    'sine',
    '440',
    'vol',
    '0.5',
  ]);
  return file;
}

/**
 * Key-down → first packet with energy at a listener: Bob in push-to-talk (his voice settings in
 * local storage) sends a steady tone; Alice's page watches the audio level of the packets it
 * receives from him (RTCRtpReceiver.getSynchronizationSources, the level the sender wrote in
 * each packet's header, every 2 ms: getStats would not do, Chromium keeps its answer for 50 ms);
 * each trial presses the key after a second of silence (the closed gate sends digital silence,
 * level 0), notes the wall clock of the press and of the first loud packet, and lets go.
 */
async function measurePushToTalk(apiUrl: string) {
  const alice = await createPerson(apiUrl, 'Alice');
  const bob = await createPerson(apiUrl, 'Bob');
  const roomName = `PTT bench ${Date.now().toString(36)}`;
  await apiCall(apiUrl, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: alice.token,
    body: { name: roomName, type: 'public' },
  });
  const listener = await CallBrowser.launch({ baseURL: apiUrl });
  const speaker = await CallBrowser.launch({
    baseURL: apiUrl,
    args: [`--use-file-for-fake-audio-capture=${toneFile()}`],
  });
  try {
    await listener.context.addInitScript({ content: KEEP_NAMES_SHIM });
    await speaker.context.addInitScript(
      (settings) => localStorage.setItem('voiceSettings', settings),
      JSON.stringify({ inputMode: 'push-to-talk', noiseSuppression: false }),
    );
    await openRooms(listener.page, alice);
    await joinFromList(listener.page, roomName);
    await openRooms(speaker.page, bob);
    await joinFromList(speaker.page, roomName);
    await sleep(SETTLE_MS);
    const delays: number[] = [];
    for (let trial = 0; trial < PTT_TRIALS; trial++) {
      await sleep(1000);
      // The listener waits for energy from Bob to grow; resolves with the wall clock of it.
      const heard = listener.page.evaluate(
        async ([key, peerId]) => {
          // The receivers of Bob's voice: what carries the track his <audio> plays.
          const tracks = new Set<string>();
          for (const element of document.querySelectorAll<HTMLAudioElement>(
            `audio[data-peer-id="${peerId}"]`,
          )) {
            const track = (element.srcObject as MediaStream | null)?.getAudioTracks()[0];
            if (track) tracks.add(track.id);
          }
          const receivers = ((window as unknown as Record<string, RTCPeerConnection[]>)[key] ?? [])
            .filter((pc) => pc.connectionState !== 'closed')
            .flatMap((pc) => pc.getReceivers())
            .filter((receiver) => tracks.has(receiver.track.id));
          // The level the sender wrote in the last packet's header (RFC 6464), per packet.
          const loudest = () =>
            Math.max(
              0,
              ...receivers.flatMap((r) => r.getSynchronizationSources().map((s) => s.audioLevel ?? 0)),
            );
          const deadline = Date.now() + 5000;
          while (Date.now() < deadline) {
            if (loudest() > 0.05) return Date.now();
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
          return null;
        },
        [PEER_CONNECTIONS, bob.id] as const,
      );
      await sleep(50);
      const pressedAt = Date.now();
      await speaker.page.keyboard.down('Backquote');
      const at = await heard;
      await speaker.page.keyboard.up('Backquote');
      if (at !== null) delays.push(at - pressedAt);
      console.log(
        `push-to-talk trial ${trial + 1}: ${at === null ? 'nothing heard in 5 s' : `${at - pressedAt} ms`}`,
      );
    }
    const sorted = [...delays].sort((a, b) => a - b);
    const pick = (p: number) =>
      sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
    return {
      measured: true,
      trials: PTT_TRIALS,
      heard: delays.length,
      p50Ms: pick(50),
      p95Ms: pick(95),
      maxMs: sorted.at(-1) ?? null,
    };
  } finally {
    await speaker.close();
    await listener.close();
  }
}

// --- Run --------------------------------------------------------------------------------------

ensureWebBuilt(webDist);
await recreateBenchDatabase(adminUrl);
const port = 18_093;
const api = await startApi(port, { ...env, PUBLIC_URL: `http://127.0.0.1:${port}` });
try {
  const ms = (samples: number) => (samples / RNNOISE.sampleRate) * 1000;
  let loopback: Loopback | null = null;
  if (PARTS.has('latency')) {
    console.log('latency (loopback)…');
    loopback = await measureLatency(api.url);
  }
  let cpu: Awaited<ReturnType<typeof measureCpu>> | null = null;
  if (PARTS.has('cpu')) {
    console.log(`CPU, ${ROUNDS} rounds of ${CPU_SECONDS} s each way…`);
    cpu = await measureCpu(api.url);
  }
  let pushToTalk: Awaited<ReturnType<typeof measurePushToTalk>> | null = null;
  if (PARTS.has('ptt')) {
    console.log(`push-to-talk, ${PTT_TRIALS} presses…`);
    pushToTalk = await measurePushToTalk(api.url);
  }
  report('voice', {
    goals: GOALS,
    latency: loopback && {
      renderQuantumSamples: loopback.quantumSamples,
      rnnoiseFrameMs: round(ms(RNNOISE.frameSamples), 2),
      workletBufferMs: round(ms(loopback.framingDelaySamples), 2),
      byDesignMs: round(ms(RNNOISE.frameSamples + loopback.framingDelaySamples), 2),
      loopbackWorkletMs: round(loopback.rnnoiseMs - loopback.passThroughMs, 2),
      loopbackAudioContextRoundTripMs: round(loopback.passThroughMs, 2),
      loopbackTotalAddedMs: round(loopback.rnnoiseMs, 2),
      contextBaseLatencyMs: round(loopback.contextBaseMs, 2),
      contextOutputLatencyMs: round(loopback.contextOutputMs, 2),
      loopbackCorrelation: round(loopback.rnnoiseCorrelation, 3),
      passThroughCorrelation: round(loopback.passThroughCorrelation, 3),
    },
    cpu,
    pushToTalk,
  });
} finally {
  await api.stop();
}
