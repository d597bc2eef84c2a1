/**
 * The app-wide body parser: JSON only (the avatar route parses its own multipart), in
 * plain, gzip, deflate or brotli. Whatever goes wrong while reading a body is the
 * client's doing and gets a 4xx in our error shape, never a 500 and an ERROR line.
 */
import { LIMITS as SPEC_LIMITS } from '@voice/protocol';
import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { AppError } from '../errors.ts';

// DELETE too: removing the account (DELETE /users/me) carries the password in its body.
const PARSED_METHODS = [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE];
const PARSED = new Set<string>(PARSED_METHODS);

export function jsonBody(): Middleware {
  const parse = koaBody({
    json: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonLimit: `${SPEC_LIMITS.jsonBodyMaxBytes}b`,
    // Without strict a JSON body could be a bare string or number.
    jsonStrict: true,
    parsedMethods: PARSED_METHODS,
  });
  return async (ctx, next) => {
    // Most requests (GET) have no body: koa-body would only find that out after four type checks.
    if (!PARSED.has(ctx.method)) return next();
    let parsed = false;
    try {
      await parse(ctx, () => {
        parsed = true;
        return next();
      });
    } catch (error) {
      // Errors from the routes pass through untouched; only the parser's own are translated.
      if (parsed) throw error;
      throw bodyError(error);
    }
  };
}

function bodyError(error: unknown): unknown {
  const { status, code } = error as { status?: number; code?: unknown };
  if (status === 415)
    return new AppError('UNSUPPORTED_MEDIA_TYPE', undefined, 'Unsupported Content-Encoding');
  // zlib's errors: a body that is not what its Content-Encoding says (Z_DATA_ERROR, Z_BUF_ERROR,
  // and brotli's ERR__ERROR_FORMAT_…). They carry no status, so Koa would make them 500s.
  if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR'))) {
    return new AppError('INVALID_JSON', undefined, 'The body does not decode as its Content-Encoding says');
  }
  return error;
}
