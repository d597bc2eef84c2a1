/**
 * Turns an uploaded file into an avatar with sharp: the content (not the name or the
 * declared type) must be JPEG, PNG, GIF or WebP; the result is upright, stripped of
 * every metadata (EXIF, GPS, ICC, XMP), cover-cropped to 256×256 and encoded as WebP.
 */
import { AVATAR_UPLOAD } from '@voice/protocol';
import sharp, { type SharpOptions } from 'sharp';
import { AppError } from '../errors.ts';

const FORMATS: ReadonlySet<string> = new Set(AVATAR_UPLOAD.formats);

const INPUT: SharpOptions = {
  // Refuses what the header claims is bigger, before any pixel is decoded.
  limitInputPixels: AVATAR_UPLOAD.maxPixels,
  // The strictest level: a truncated or corrupt file is refused rather than padded with grey.
  failOn: 'warning',
  sequentialRead: true,
  // An animated GIF or WebP becomes its first frame.
  animated: false,
};

/**
 * Process-wide sharp settings that bound memory: one libvips thread per image (several
 * uploads still run side by side on the libuv pool) and no operation cache.
 */
export function configureSharp(): void {
  sharp.concurrency(1);
  sharp.cache(false);
}

/** The WebP avatar made from the image file at `file`; throws INVALID_IMAGE, IMAGE_TOO_LARGE or IMAGE_PROCESSING_FAILED. */
export async function renderAvatar(file: string): Promise<Buffer> {
  let width: number;
  let height: number;
  try {
    // Reads the header only.
    const meta = await sharp(file, INPUT).metadata();
    if (!FORMATS.has(meta.format)) throw new AppError('INVALID_IMAGE');
    width = meta.width;
    height = meta.height;
  } catch (error) {
    if (error instanceof AppError) throw error;
    // sharp checks limitInputPixels against the header here already.
    throw new AppError(isPixelLimit(error) ? 'IMAGE_TOO_LARGE' : 'INVALID_IMAGE');
  }
  if (!(width > 0 && height > 0)) throw new AppError('INVALID_IMAGE');
  if (width * height > AVATAR_UPLOAD.maxPixels) throw new AppError('IMAGE_TOO_LARGE');

  try {
    return await sharp(file, INPUT)
      .rotate()
      // JPEG shrink-on-load decodes a 12 MP photo at 1/8 scale: fast and small in memory.
      .resize(AVATAR_UPLOAD.size, AVATAR_UPLOAD.size, { fit: 'cover', fastShrinkOnLoad: true })
      .webp({ quality: 82, effort: 4 })
      .toBuffer();
  } catch (error) {
    throw classifySharpError(error);
  }
}

// libvips names the failing decoder ("VipsJpeg: premature end of JPEG image", "vipspng: libpng
// read error", "gifload: ..."); encoder failures name a saver instead ("webpsave: ...").
const DECODE_FAULT =
  /VipsJpeg|vipspng|spng|\w+load\b|premature end|unexpected end|corrupt|truncat|read error|Input (file|buffer)/i;

/** A decoding failure means a broken file (INVALID_IMAGE); anything else is ours to report. */
export function classifySharpError(error: unknown): AppError {
  if (isPixelLimit(error)) return new AppError('IMAGE_TOO_LARGE');
  if (DECODE_FAULT.test(messageOf(error))) return new AppError('INVALID_IMAGE');
  return new AppError('IMAGE_PROCESSING_FAILED');
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const isPixelLimit = (error: unknown) => /exceeds pixel limit/i.test(messageOf(error));
