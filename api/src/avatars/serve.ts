/**
 * GET /avatars/u/<64 hex digits>.webp: uploaded avatars, outside /api. A name is given to
 * one upload only and never reused, so the file is cacheable forever; only names of that
 * exact shape are looked up.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { UPLOADED_AVATAR_PATH } from '@voice/protocol';
import type { Middleware } from 'koa';
import { AppError } from '../errors.ts';
import type { AvatarStore } from './AvatarStore.ts';

export const AVATAR_CACHE_CONTROL = 'public, max-age=31536000, immutable';

const PREFIX = `${UPLOADED_AVATAR_PATH}/`;

export function avatarFiles(store: AvatarStore): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const name = ctx.path.slice(PREFIX.length);
    const file = store.fileOf(name);
    const info = file ? await stat(file).catch(() => null) : null;
    if (!file || !info?.isFile()) throw new AppError('NOT_FOUND');
    // A success status first: Koa's freshness check ignores anything else.
    ctx.status = 200;
    ctx.set('Cache-Control', AVATAR_CACHE_CONTROL);
    ctx.type = 'image/webp';
    ctx.etag = name.slice(0, -'.webp'.length);
    ctx.lastModified = info.mtime;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.length = info.size;
    // Koa answers HEAD without a body; a stream would only hold a descriptor open.
    if (ctx.method === 'GET') ctx.body = createReadStream(file);
  };
}
