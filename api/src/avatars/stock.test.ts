import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isStockAvatarId, STOCK_AVATARS, stockAvatarIdOf, stockAvatarUrl } from '@voice/protocol';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

// The SVGs ship as static files of the web build (web/public is copied into web/dist).
const STOCK_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../web/public/avatars/stock',
);

describe('stock avatars', () => {
  it('are at least 12, each with exactly one file, and no file without an entry', () => {
    expect(STOCK_AVATARS.length).toBeGreaterThanOrEqual(12);
    const files = readdirSync(STOCK_DIR).sort();
    expect(files).toEqual(STOCK_AVATARS.map((a) => `${a.id}.svg`).sort());
    expect(new Set(STOCK_AVATARS.map((a) => a.name)).size).toBe(STOCK_AVATARS.length);
  });

  it.each(STOCK_AVATARS.map((a) => [a.id, a.name]))(
    '%s is a small, self-contained square SVG titled %s',
    async (id, name) => {
      const svg = readFileSync(path.join(STOCK_DIR, `${id}.svg`), 'utf8');
      expect(svg).toContain('viewBox="0 0 256 256"');
      expect(svg).toContain(`<title>${name}</title>`);
      // Served as a plain image: no scripts, links or fetches of anything else.
      expect(svg).not.toMatch(/<script|href|url\(|<image|<foreignObject|on\w+=/i);
      expect(Buffer.byteLength(svg)).toBeLessThan(4096);
      const png = await sharp(Buffer.from(svg)).png().toBuffer();
      expect(await sharp(png).metadata()).toMatchObject({ width: 256, height: 256 });
    },
  );

  it('have URLs the API accepts and can read back', () => {
    expect(stockAvatarUrl('fox')).toBe('/avatars/stock/fox.svg');
    expect(stockAvatarIdOf('/avatars/stock/fox.svg')).toBe('fox');
    expect(stockAvatarIdOf(`/avatars/u/${'a'.repeat(64)}.webp`)).toBeNull();
    expect(stockAvatarIdOf('/avatars/stock/dragon.svg')).toBeNull();
    expect(stockAvatarIdOf(null)).toBeNull();
    expect(isStockAvatarId('owl')).toBe(true);
    for (const bad of ['dragon', 'FOX', '', null, 3, '../fox']) expect(isStockAvatarId(bad)).toBe(false);
  });
});
