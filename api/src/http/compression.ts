/**
 * Compresses answers of 1 KB or more (JSON, and any web file the build left without a
 * precompressed copy) with brotli or gzip, whichever the browser prefers. Files the
 * build compressed already carry their Content-Encoding and pass through untouched.
 */
import { constants } from 'node:zlib';
import type { Middleware } from 'koa';
import compress from 'koa-compress';

export function compression(): Middleware {
  return compress({
    threshold: 1024,
    // Quality 4: most of brotli's gain at a cost per answer close to gzip's.
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    gzip: { level: 6 },
    // Every browser that sends these also accepts br or gzip.
    deflate: false,
    zstd: false,
  });
}
