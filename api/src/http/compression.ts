/**
 * Compresses answers of 1 KB or more (JSON, and any web file the build left without a
 * precompressed copy) with brotli or gzip, whichever the browser prefers. Files the
 * build compressed already carry their Content-Encoding and pass through untouched.
 */
import { Stream } from 'node:stream';
import { constants } from 'node:zlib';
import type { Context, Middleware } from 'koa';
import compress from 'koa-compress';

const THRESHOLD = 1024;
const done = () => Promise.resolve();

export function compression(): Middleware {
  const compressor = compress({
    threshold: THRESHOLD,
    // Quality 4: most of brotli's gain at a cost per answer close to gzip's.
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    gzip: { level: 6 },
    // Every browser that sends these also accepts br or gzip.
    deflate: false,
    zstd: false,
  });
  return async (ctx, next) => {
    // Caches must know the answer depends on it, compressed or not (as koa-compress says it).
    ctx.vary('Accept-Encoding');
    await next();
    // JSON is serialized once, here: measuring it (below and in koa-compress) and Koa's own
    // sending would each serialize it again. Most API answers are small, and end here.
    if (isJson(ctx.body)) ctx.body = JSON.stringify(ctx.body);
    const size = ctx.response.length;
    if (size !== undefined && size < THRESHOLD) return;
    await compressor(ctx, done);
  };
}

/** What Koa would send as JSON: an object that is no buffer, stream, blob or response. */
function isJson(body: Context['body']): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Buffer.isBuffer(body) &&
    !(body instanceof Stream) &&
    typeof (body as { pipe?: unknown }).pipe !== 'function' &&
    !(body instanceof Blob) &&
    !(body instanceof ReadableStream) &&
    !(body instanceof Response)
  );
}
