/**
 * The multipart parser of POST /users/avatar (the app-wide body parser has multipart
 * off): koa-body with formidable, one file of at most 5 MB streamed to DATA_DIR/tmp.
 * Every temp file of the request is removed once the request is answered, whatever
 * happened, including a part that formidable was still opening when the parse failed.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { AVATAR_UPLOAD } from '@voice/protocol';
import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { AppError } from '../errors.ts';
import { PRIVATE_FILE_MODE, privateDir } from '../privateFiles.ts';

/** The uploaded file a handler finds in ctx.state.upload. */
export interface UploadedFile {
  /** Temp file, deleted after the response: read it, do not keep it. */
  path: string;
  size: number;
}

export interface UploadState {
  upload: UploadedFile;
}

// Room for the multipart framing around one file: boundaries and part headers.
const MULTIPART_OVERHEAD = 64 * 1024;
const STALE_TEMP_MS = 60 * 60 * 1000;

/** formidable's error numbers (formidable/src/FormidableError.js) that we answer specifically. */
const FORMIDABLE = { maxFieldsSize: 1006, maxFields: 1007, totalTooBig: 1009, maxFiles: 1015, tooBig: 1016 };

/** Creates `tmpDir` and deletes what a crashed process left there. */
export async function prepareTempDir(tmpDir: string): Promise<void> {
  await privateDir(tmpDir);
  const now = Date.now();
  for (const entry of await readdir(tmpDir)) {
    const file = path.join(tmpDir, entry);
    const info = await stat(file).catch(() => null);
    if (info?.isFile() && now - info.mtimeMs > STALE_TEMP_MS) await rm(file, { force: true });
  }
}

export function avatarUpload(tmpDir: string): Middleware<UploadState> {
  const { field, maxBytes } = AVATAR_UPLOAD;
  return async (ctx, next) => {
    if (!ctx.is('multipart/form-data')) throw new AppError('UNSUPPORTED_MEDIA_TYPE');
    // A body declared this long cannot hold an acceptable file: refuse before reading it.
    if (Number(ctx.get('content-length')) > maxBytes + MULTIPART_OVERHEAD) {
      throw new AppError('IMAGE_TOO_LARGE');
    }
    const temp = new TempFiles(tmpDir);
    const parse = koaBody({
      multipart: true,
      json: false,
      urlencoded: false,
      text: false,
      formidable: {
        uploadDir: tmpDir,
        maxFiles: 1,
        maxFileSize: maxBytes,
        maxTotalFileSize: maxBytes,
        maxFields: 4,
        maxFieldsSize: 4096,
        // An empty file is judged like any other content: INVALID_IMAGE, not a parser error.
        allowEmptyFiles: true,
        minFileSize: 0,
        fileWriteStreamHandler: (file) => temp.open(file as unknown as { filepath: string }),
      },
    });
    try {
      try {
        await parse(ctx, async () => {});
      } catch (error) {
        // Let the rest of the body drain so the client can read our answer.
        ctx.req.resume();
        throw uploadError(error);
      }
      const files = ctx.request.files?.[field];
      const file = Array.isArray(files) ? files[0] : files;
      if (!file) throw new AppError('VALIDATION', field, `${field}: a file is required`);
      ctx.state.upload = { path: file.filepath, size: file.size };
      await next();
    } finally {
      await temp.removeAll();
    }
  };
}

function uploadError(error: unknown): AppError {
  const code = (error as { code?: unknown }).code;
  if (code === FORMIDABLE.tooBig || code === FORMIDABLE.totalTooBig) return new AppError('IMAGE_TOO_LARGE');
  if (code === FORMIDABLE.maxFiles) return new AppError('VALIDATION', AVATAR_UPLOAD.field, 'Send one file');
  if (code === FORMIDABLE.maxFields || code === FORMIDABLE.maxFieldsSize) {
    return new AppError('PAYLOAD_TOO_LARGE');
  }
  return new AppError('VALIDATION', AVATAR_UPLOAD.field, 'Malformed multipart body');
}

/** The temp files of one request, removed together. */
class TempFiles {
  readonly #files: { path: string; stream: WriteStream }[] = [];
  #closed = false;

  constructor(readonly dir: string) {}

  /** The stream formidable writes a file part into; the path is ours, not derived from the request. */
  open(file: { filepath: string }): Writable {
    // A part that began as the parse failed must not create a file after the cleanup ran.
    if (this.#closed) return new Writable({ write: (_chunk, _encoding, done) => done() });
    const filepath = path.join(this.dir, `upload-${randomUUID()}`);
    file.filepath = filepath;
    const stream = createWriteStream(filepath, { flags: 'wx', mode: PRIVATE_FILE_MODE });
    this.#files.push({ path: filepath, stream });
    return stream;
  }

  async removeAll(): Promise<void> {
    this.#closed = true;
    await Promise.all(
      this.#files.map(async ({ path: file, stream }) => {
        // Wait for the descriptor to close: a stream still opening would create the file after rm.
        if (!stream.closed) {
          const closed = once(stream, 'close').catch(() => undefined);
          stream.destroy();
          await closed;
        }
        await rm(file, { force: true });
      }),
    );
  }
}
