/**
 * npm run bench:avatar — POST /api/users/avatar with a 12-megapixel JPEG of just under
 * 5 MB (noise, the decoder's worst case): time per upload, one after another, then the
 * API process's peak memory with 4 uploads at once. Goal: under 300 ms per image and
 * under 100 MB of extra memory. DATABASE_URL defaults to the local PostgreSQL;
 * BENCH_UPLOADS sets the number of sequential uploads.
 */
import { readFileSync } from 'node:fs';
import { LIMITS } from '@voice/protocol';
import sharp from 'sharp';
import { DEFAULT_DATABASE_URL, report, startApi } from './harness.ts';

const uploads = Number(process.env.BENCH_UPLOADS ?? 10);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const CONCURRENT = 4;
const ROUNDS = 3;
const WIDTH = 4000;
const HEIGHT = 3000;
// Just under the 5 MiB limit, with room for nothing else: the heaviest photo we accept.
const TARGET = { min: 4_500_000, max: Math.min(4_990_000, LIMITS.imageMaxBytes - 1) };

/** A 4000×3000 JPEG of noise, at the highest quality that stays under TARGET.max. */
async function heavyJpeg(): Promise<Buffer> {
  const noise = await sharp({
    create: {
      width: WIDTH,
      height: HEIGHT,
      channels: 3,
      background: { r: 0, g: 0, b: 0 },
      noise: { type: 'gaussian', mean: 128, sigma: 30 },
    },
  })
    .raw()
    .toBuffer();
  const encode = (quality: number) =>
    sharp(noise, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
      .jpeg({ quality })
      .toBuffer();
  let best: Buffer | null = null;
  for (let low = 50, high = 100; low <= high; ) {
    const quality = Math.floor((low + high) / 2);
    const jpeg = await encode(quality);
    if (jpeg.length <= TARGET.max) {
      best = jpeg;
      low = quality + 1;
    } else {
      high = quality - 1;
    }
  }
  if (!best || best.length < TARGET.min)
    throw new Error(`test image is ${best?.length} bytes, outside the target`);
  return best;
}

/** Resident memory of a process in bytes: now (VmRSS) and its peak so far (VmHWM). */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const image = await heavyJpeg();
const api = await startApi(18_081, { DATABASE_URL: databaseUrl });
try {
  const pid = api.child.pid as number;
  const username = `bench_av_${Date.now().toString(36)}`;
  const registered = await fetch(`${api.url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username,
      email: `${username}@bench.test`,
      password: 'bench-password',
      acceptTerms: true,
    }),
  });
  const { token } = (await registered.json()) as { token: string };

  const upload = async (): Promise<number> => {
    const body = new FormData();
    body.append('avatar', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'photo.jpg');
    const started = performance.now();
    const res = await fetch(`${api.url}/api/users/avatar`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${text}`);
    return performance.now() - started;
  };

  await new Promise((r) => setTimeout(r, 500));
  const idle = memoryOf(pid);

  await upload(); // warm-up: JIT, libvips start-up
  const times: number[] = [];
  for (let i = 0; i < uploads; i += 1) times.push(await upload());
  const sorted = [...times].sort((a, b) => a - b);

  const beforeConcurrent = memoryOf(pid);
  let peakRss = beforeConcurrent.rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, memoryOf(pid).rss);
  }, 5);
  const batches: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENT }, upload));
    batches.push(performance.now() - started);
  }
  clearInterval(sampler);
  const after = memoryOf(pid);
  peakRss = Math.max(peakRss, after.rss);

  const ms = (n: number) => Math.round(n);
  report('avatar', {
    database: databaseUrl.replace(/\/\/[^@]*@/, '//'),
    image: { width: WIDTH, height: HEIGHT, bytes: image.length, mib: mb(image.length) },
    sequential: {
      uploads,
      meanMs: ms(times.reduce((a, b) => a + b, 0) / times.length),
      p50Ms: ms(percentile(sorted, 50)),
      maxMs: ms(sorted.at(-1) ?? 0),
    },
    concurrent: {
      uploadsAtOnce: CONCURRENT,
      rounds: ROUNDS,
      batchMs: batches.map(ms),
      idleRssMb: mb(idle.rss),
      rssBeforeMb: mb(beforeConcurrent.rss),
      peakRssMb: mb(peakRss),
      /** Peak during the concurrent uploads over the idle process before any upload. */
      peakIncreaseOverIdleMb: mb(peakRss - idle.rss),
      peakIncreaseOverBeforeMb: mb(peakRss - beforeConcurrent.rss),
      vmHwmMb: mb(after.hwm),
    },
    goal: { meanMs: 300, extraMemoryMb: 100 },
  });
} finally {
  await api.stop();
}
