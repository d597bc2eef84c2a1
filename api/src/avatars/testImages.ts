/** Images for the avatar tests, made with sharp or by hand, and a small EXIF reader to check the output. */
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

type Rgb = { r: number; g: number; b: number };
export const RED: Rgb = { r: 255, g: 0, b: 0 };
export const BLUE: Rgb = { r: 0, g: 0, b: 255 };

/** A random colour: tests share one database across runs, so their images must not coincide. */
export function randomColor(): Rgb {
  const channel = () => Math.floor(Math.random() * 256);
  return { r: channel(), g: channel(), b: channel() };
}

/** A plain image of one colour (random unless given) in `format`. */
export function solid(
  format: 'jpeg' | 'png' | 'gif' | 'webp',
  { width = 64, height = 48, color = randomColor() } = {},
): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .toFormat(format)
    .toBuffer();
}

/** 200×100, left half red and right half blue, stored sideways: EXIF orientation 6 (display turned 90° clockwise). */
export function sidewaysJpeg(): Promise<Buffer> {
  return sharp({ create: { width: 200, height: 100, channels: 3, background: RED } })
    .composite([
      { input: { create: { width: 100, height: 100, channels: 3, background: BLUE } }, left: 100, top: 0 },
    ])
    .jpeg({ quality: 95 })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

/** A JPEG carrying a camera make and a GPS position in its EXIF. */
export function jpegWithGps(): Promise<Buffer> {
  return sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 70, g: 170, b: 120 } } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'TestCam', Model: 'X1' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '48/1 51/1 2450/100',
        GPSLongitudeRef: 'E',
        GPSLongitude: '2/1 17/1 4000/100',
      },
    })
    .toBuffer();
}

/** The first half of a real JPEG: a valid header, then the data stops. */
export async function truncatedJpeg(): Promise<Buffer> {
  const whole = await sharp({
    create: {
      width: 400,
      height: 300,
      channels: 3,
      background: { r: 0, g: 0, b: 0 },
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .jpeg()
    .toBuffer();
  return whole.subarray(0, Math.floor(whole.length / 2));
}

/**
 * A valid 1-bit greyscale PNG of width × height, all black: 20000×20000 is 400 megapixels
 * (about 1.2 GB once decoded to RGB) in a file of some 50 KB. Built by hand, chunk by chunk.
 */
export function hugePng(width = 20_000, height = 20_000): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, adaptive filter, no interlace
  // Each row: filter byte 0, then width/8 bytes of zero bits.
  const raw = Buffer.alloc((1 + Math.ceil(width / 8)) * height);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The tag numbers of IFD0 and of the GPS IFD in an image's EXIF, or null when it has none. */
export async function exifTags(image: Buffer): Promise<{ ifd0: number[]; gps: number[] } | null> {
  const { exif } = await sharp(image).metadata();
  if (!exif) return null;
  const tiff = exif.subarray(exif.indexOf('II*') >= 0 ? exif.indexOf('II*') : exif.indexOf('MM'));
  const le = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const entries = (at: number) =>
    Array.from({ length: u16(at) }, (_, i) => ({ tag: u16(at + 2 + i * 12), value: u32(at + 10 + i * 12) }));
  const ifd0 = entries(u32(4));
  const gpsPointer = ifd0.find((e) => e.tag === 0x8825);
  return { ifd0: ifd0.map((e) => e.tag), gps: gpsPointer ? entries(gpsPointer.value).map((e) => e.tag) : [] };
}

/** The colour of one pixel of an image. */
export async function pixel(image: Buffer, x: number, y: number): Promise<Rgb> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return { r: data[at] ?? 0, g: data[at + 1] ?? 0, b: data[at + 2] ?? 0 };
}

/** True when `actual` is within `tolerance` of `expected` on every channel (lossy encodings drift). */
export function near(actual: Rgb, expected: Rgb, tolerance = 40): boolean {
  return (
    Math.abs(actual.r - expected.r) <= tolerance &&
    Math.abs(actual.g - expected.g) <= tolerance &&
    Math.abs(actual.b - expected.b) <= tolerance
  );
}
