import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { precompressDir } from './precompress.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dist(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'precompress-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

describe('precompressDir', () => {
  it('writes .br and .gz copies of text files that decode to the original', async () => {
    const script = `export const text = ${JSON.stringify('hello world '.repeat(500))};\n`;
    const dir = dist({
      'index.html': `<!doctype html><html>${'<p>page</p>'.repeat(200)}</html>`,
      'assets/index-abc123.js': script,
      'assets/index-abc123.css': `body { color: green; }\n`.repeat(100),
      'avatars/stock/owl.svg': `<svg>${'<circle r="1"/>'.repeat(100)}</svg>`,
    });
    expect(await precompressDir(dir)).toEqual([
      'assets/index-abc123.css',
      'assets/index-abc123.js',
      'avatars/stock/owl.svg',
      'index.html',
    ]);
    const original = readFileSync(path.join(dir, 'assets/index-abc123.js'));
    const br = readFileSync(path.join(dir, 'assets/index-abc123.js.br'));
    const gz = readFileSync(path.join(dir, 'assets/index-abc123.js.gz'));
    expect(brotliDecompressSync(br).equals(original)).toBe(true);
    expect(gunzipSync(gz).equals(original)).toBe(true);
    expect(br.length).toBeLessThan(original.length / 10);
  });

  it('leaves small files, images and source maps alone', async () => {
    const dir = dist({
      'assets/tiny-1.js': 'export {};\n',
      'assets/big-1.js.map': JSON.stringify({ mappings: 'A'.repeat(5000) }),
      'avatars/photo.webp': Buffer.alloc(5000, 7),
    });
    expect(await precompressDir(dir)).toEqual([]);
  });
});
