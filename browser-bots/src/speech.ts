/**
 * Speech recordings for the browsers' fake microphones (`--use-file-for-fake-audio-capture`):
 * four people with different sentences and different voices, spoken by espeak-ng and
 * converted by sox (both from `deploy/install-system-deps.sh audio`). Made once and cached in
 * the system's temporary directory under a name derived from everything that shapes the file.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Chromium plays the file as 10 ms chunks at the capture rate; 48 kHz is WebRTC's native rate. */
export const SPEECH_FORMAT = { sampleRate: 48_000, channels: 1, bitsPerSample: 16 } as const;

/** One voice: espeak-ng's voice name, pitch (0-99), speed (words a minute) and what it says. */
interface Voice {
  voice: string;
  pitch: number;
  speed: number;
  text: string;
}

// About 12-16 s each, with short word gaps: Chromium loops the file, so the speech is near-continuous.
const VOICES = {
  /** A low man's voice (American English). */
  bob: {
    voice: 'en-us',
    pitch: 15,
    speed: 160,
    text:
      'The quick brown fox jumps over the lazy dog while the morning train rolls slowly into the old ' +
      'station. Seven sailors counted ninety silver coins beside the harbour wall, and nobody said a ' +
      'single word about the storm.',
  },
  /** A high woman's voice (British English, espeak-ng's f3 variant). */
  alice: {
    voice: 'en+f3',
    pitch: 85,
    speed: 170,
    text:
      'Please remember to water the tomato plants on the balcony every evening. My grandmother baked ' +
      'twelve lemon cakes for the village fair, and every one of them was gone before noon on Sunday ' +
      'afternoon.',
  },
  /** A middle man's voice (British English), for rooms of four. */
  carol: {
    voice: 'en+m3',
    pitch: 50,
    speed: 150,
    text:
      'Four friends walked along the quiet river to the bridge, where a painter was sketching the ' +
      'boats. They bought warm bread at the corner bakery and talked about the long summer holidays ' +
      'by the sea.',
  },
  /** A second woman's voice (Scottish English), for rooms of four. */
  dave: {
    voice: 'en-gb-scotland+f2',
    pitch: 65,
    speed: 165,
    text:
      'On Thursday the library opens late, so bring your books back before nine. The museum has a new ' +
      'room full of clocks, maps and tiny ships in glass bottles that children love to look at.',
  },
  /** A third man's voice (a rougher variant), for rooms of six. */
  frank: {
    voice: 'en+m7',
    pitch: 35,
    speed: 155,
    text:
      'The mountain road climbs past three small farms and an old stone church before it reaches ' +
      'the lake. In winter the ferry stops running, and the postman carries letters across the ice ' +
      'on a wooden sledge.',
  },
  /** A third woman's voice (American English), for rooms of six. */
  erin: {
    voice: 'en-us+f4',
    pitch: 70,
    speed: 160,
    text:
      'Our neighbours planted a row of apple trees along the fence last spring. By September the ' +
      'branches were heavy with fruit, and the whole street came over to help pick them and press ' +
      'the juice.',
  },
} as const satisfies Record<string, Voice>;

/** Whose voice a fake microphone plays. */
export type Speaker = keyof typeof VOICES;

export const SPEAKERS = Object.keys(VOICES) as Speaker[];

/** sox's options for SPEECH_FORMAT. */
const SOX_FORMAT = [
  '-r',
  String(SPEECH_FORMAT.sampleRate),
  '-c',
  String(SPEECH_FORMAT.channels),
  '-b',
  String(SPEECH_FORMAT.bitsPerSample),
];

/**
 * A WAV file in the temporary folder named `${name}-<hash of recipe>.wav`, made by `make` on
 * first use. Parallel workers may make the same file: each writes its own (`partial`, with any
 * `scratch` files beside it), then renames it into place.
 */
async function cachedWav(
  name: string,
  recipe: unknown,
  make: (partial: string, scratch: (suffix: string) => string) => Promise<void>,
): Promise<string> {
  const key = createHash('sha256').update(JSON.stringify(recipe)).digest('hex').slice(0, 16);
  const file = path.join(tmpdir(), `${name}-${key}.wav`);
  if (existsSync(file)) return file;
  const partial = `${file}.${randomBytes(4).toString('hex')}`;
  const made = [partial];
  const scratch = (suffix: string) => {
    const name = `${partial}.${suffix}`;
    made.push(name);
    return name;
  };
  try {
    await make(partial, scratch);
    await rename(partial, file);
  } finally {
    await Promise.all(made.map((made) => rm(made, { force: true })));
  }
  return file;
}

/** The WAV file (48 kHz mono 16-bit) of `speaker`'s recording, made on first use. */
export function speechFile(speaker: Speaker): Promise<string> {
  const voice: Voice = VOICES[speaker];
  return cachedWav(
    `voice-e2e-speech-${speaker}`,
    { voice, format: SPEECH_FORMAT },
    async (partial, scratch) => {
      const raw = scratch('espeak.wav');
      await run('espeak-ng', [
        '-v',
        voice.voice,
        '-p',
        String(voice.pitch),
        '-s',
        String(voice.speed),
        '-g',
        '2',
        '-w',
        raw,
        voice.text,
      ]).catch(missingTool('espeak-ng'));
      // espeak-ng writes 22.05 kHz; norm brings both voices to the same peak level.
      await run('sox', [raw, ...SOX_FORMAT, '-t', 'wav', partial, 'norm', '-3']).catch(missingTool('sox'));
    },
  );
}

/**
 * A second of digital silence (48 kHz mono 16-bit) for a fake microphone that must send nothing
 * audible, e.g. a load test's listeners: without a file Chromium's fake device plays a beep.
 */
export function silenceFile(): Promise<string> {
  return cachedWav('voice-e2e-silence', { seconds: 1, format: SPEECH_FORMAT }, async (partial) => {
    await run('sox', ['-n', ...SOX_FORMAT, '-t', 'wav', partial, 'trim', '0', '1']).catch(missingTool('sox'));
  });
}

/** How a noisy recording is made: speech, then silence, all of it in white noise. */
export interface NoisySpeechOptions {
  /** Seconds of the speaker's recording at the start of each loop. */
  speechSeconds?: number;
  /** Seconds of silence (noise only) after it: the gaps where the noise floor is measured. */
  gapSeconds?: number;
  /** The white noise's RMS level, in dB below full scale (the speech recordings are about -24). */
  noiseDbfs?: number;
}

/**
 * `speaker`'s recording cut to `speechSeconds`, followed by `gapSeconds` of silence, with white
 * noise of `noiseDbfs` RMS mixed over the whole (48 kHz mono 16-bit): Chromium loops it, so a
 * listener gets speech and noise-only gaps in turn. Made once and cached like speechFile().
 */
export async function noisySpeechFile(
  speaker: Speaker,
  { speechSeconds = 4, gapSeconds = 2, noiseDbfs = -25 }: NoisySpeechOptions = {},
): Promise<string> {
  const speech = await speechFile(speaker);
  const recipe = { speech: path.basename(speech), speechSeconds, gapSeconds, noiseDbfs };
  return cachedWav(`voice-e2e-noisy-${speaker}`, recipe, async (partial, scratch) => {
    const gapped = scratch('speech.wav');
    const noise = scratch('noise.wav');
    const seconds = String(speechSeconds + gapSeconds);
    // Uniform white noise of amplitude a has an RMS of a/√3.
    const amplitude = 10 ** (noiseDbfs / 20) * Math.sqrt(3);
    await run('sox', [
      speech,
      gapped,
      'trim',
      '0',
      String(speechSeconds),
      'pad',
      '0',
      String(gapSeconds),
    ]).catch(missingTool('sox'));
    await run('sox', [
      '-n',
      ...SOX_FORMAT,
      noise,
      'synth',
      seconds,
      'whitenoise',
      'vol',
      amplitude.toFixed(4),
    ]);
    // -m alone would halve both inputs; -v 1 keeps each at its own level.
    await run('sox', ['-m', '-v', '1', gapped, '-v', '1', noise, ...SOX_FORMAT, '-t', 'wav', partial]);
  });
}

function missingTool(tool: string) {
  return (error: NodeJS.ErrnoException): never => {
    if (error.code === 'ENOENT') {
      throw new Error(`${tool} is missing: run \`deploy/install-system-deps.sh audio\``);
    }
    throw error;
  };
}
