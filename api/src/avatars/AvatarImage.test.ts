import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { classifySharpError, renderAvatar } from './AvatarImage.ts';
import {
  BLUE,
  exifTags,
  hugePng,
  jpegWithGps,
  near,
  pixel,
  RED,
  sidewaysJpeg,
  solid,
  truncatedJpeg,
} from './testImages.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'voice-avatar-image-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function fileWith(content: Buffer | string, name = 'upload'): string {
  counter += 1;
  const file = path.join(dir, `${counter}-${name}`);
  writeFileSync(file, content);
  return file;
}

async function refusal(content: Buffer | string, name?: string): Promise<string> {
  const error = await renderAvatar(fileWith(content, name)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return (error as AppError).code;
}

describe('renderAvatar()', () => {
  it.each(['jpeg', 'png', 'gif', 'webp'] as const)('turns a %s into a 256×256 WebP', async (format) => {
    const out = await renderAvatar(fileWith(await solid(format, { width: 640, height: 480 })));
    const meta = await sharp(out).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 256, height: 256 });
  });

  it('cover-crops: a wide image fills the square rather than being letterboxed', async () => {
    const out = await renderAvatar(fileWith(await solid('png', { width: 1000, height: 100, color: RED })));
    expect(near(await pixel(out, 128, 2), RED)).toBe(true);
    expect(near(await pixel(out, 128, 253), RED)).toBe(true);
  });

  it('applies the EXIF orientation: a sideways photo comes out upright', async () => {
    // Stored 200×100 red|blue with orientation 6: shown upright it is 100×200, red above blue.
    const out = await renderAvatar(fileWith(await sidewaysJpeg()));
    expect(near(await pixel(out, 128, 40), RED)).toBe(true);
    expect(near(await pixel(out, 128, 215), BLUE)).toBe(true);
    // Left and right of the middle row agree: no red|blue split across the width.
    expect(near(await pixel(out, 20, 60), await pixel(out, 235, 60))).toBe(true);
    expect((await sharp(out).metadata()).orientation).toBeUndefined();
  });

  it('strips every metadata: GPS position, camera, ICC, XMP', async () => {
    const input = await jpegWithGps();
    expect((await exifTags(input))?.gps.length).toBeGreaterThan(0);
    const out = await renderAvatar(fileWith(input));
    const meta = await sharp(out).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(await exifTags(out)).toBeNull();
    expect(out.includes(Buffer.from('TestCam'))).toBe(false);
    expect(out.includes(Buffer.from('Exif'))).toBe(false);
  });

  it('judges the content, not the name: a PNG named .txt is fine', async () => {
    const out = await renderAvatar(fileWith(await solid('png'), 'notes.txt'));
    expect((await sharp(out).metadata()).format).toBe('webp');
  });

  it('refuses what is not a JPEG, PNG, GIF or WebP with INVALID_IMAGE', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle r="30"/></svg>';
    expect(await refusal(svg, 'avatar.png')).toBe('INVALID_IMAGE');
    expect(await refusal('just some text\n', 'avatar.png')).toBe('INVALID_IMAGE');
    expect(await refusal(Buffer.alloc(0), 'empty.jpg')).toBe('INVALID_IMAGE');
    const tiff = await sharp({ create: { width: 8, height: 8, channels: 3, background: RED } })
      .tiff()
      .toBuffer();
    expect(await refusal(tiff, 'photo.jpg')).toBe('INVALID_IMAGE');
    const avif = await sharp({ create: { width: 8, height: 8, channels: 3, background: RED } })
      .avif()
      .toBuffer();
    expect(await refusal(avif, 'photo.heic')).toBe('INVALID_IMAGE');
  });

  it('refuses a truncated or corrupt file with INVALID_IMAGE', async () => {
    expect(await refusal(await truncatedJpeg())).toBe('INVALID_IMAGE');
    const png = await solid('png', { width: 300, height: 300 });
    expect(await refusal(png.subarray(0, 60))).toBe('INVALID_IMAGE');
  });

  it('refuses 400 megapixels from the header alone with IMAGE_TOO_LARGE, quickly', async () => {
    const bomb = hugePng();
    expect(bomb.length).toBeLessThan(200_000);
    const started = performance.now();
    expect(await refusal(bomb)).toBe('IMAGE_TOO_LARGE');
    // Decoding 400 MP would take seconds and over a gigabyte.
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('accepts an image just under the pixel limit', async () => {
    const out = await renderAvatar(fileWith(hugePng(5000, 5000)));
    expect((await sharp(out).metadata()).width).toBe(256);
  });
});

describe('classifySharpError()', () => {
  it.each([
    ['VipsJpeg: premature end of JPEG image', 'INVALID_IMAGE'],
    ['vipspng: libpng read error', 'INVALID_IMAGE'],
    ['Input file has corrupt header: gifload: Unexpected end of GIF source data', 'INVALID_IMAGE'],
    ['Input image exceeds pixel limit', 'IMAGE_TOO_LARGE'],
    ['webpsave: unable to encode', 'IMAGE_PROCESSING_FAILED'],
    ['vips_malloc: out of memory', 'IMAGE_PROCESSING_FAILED'],
  ])('%s → %s', (message, code) => {
    expect(classifySharpError(new Error(message)).code).toBe(code);
  });
});
