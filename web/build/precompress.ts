/**
 * Build step: writes a brotli (`.br`) and a gzip (`.gz`) copy beside every text file of the
 * build, at the strongest settings, once. The API serves the copy a browser accepts
 * (koa-send), so no request pays for compressing a script or a page.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Files worth compressing; images and fonts are compressed already, source maps are for developers. */
const TEXT_FILE = /\.(?:js|mjs|css|html|svg|json|webmanifest|txt|xml)$/;
/** Below this a compressed copy saves less than the headers it costs. */
const MIN_BYTES = 1024;

/** Compresses every text file under `dir`; returns the files it wrote copies of, relative to `dir`. */
export async function precompressDir(dir: string): Promise<string[]> {
  const done: string[] = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    const file = path.join(dir, entry);
    if (!TEXT_FILE.test(file) || !(await stat(file)).isFile()) continue;
    if (await compressFile(file)) done.push(entry);
  }
  return done.sort();
}

/** Writes the compressed copies of one file; false when it is too small to be worth it. */
export async function compressFile(file: string): Promise<boolean> {
  const content = await readFile(file);
  if (content.length < MIN_BYTES) return false;
  const [br, gz] = await Promise.all([
    brotli(content, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
    gzipAsync(content, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  // A copy that is not smaller would only cost the browser a decompression.
  if (br.length < content.length) await writeFile(`${file}.br`, br);
  if (gz.length < content.length) await writeFile(`${file}.gz`, gz);
  return true;
}

/** The Vite plugin: runs after the build is written, public files included. */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'voice:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      await precompressDir(outDir);
    },
  };
}
