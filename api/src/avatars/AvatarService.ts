/**
 * Users' avatars: uploads become stored WebP files, a replaced upload is deleted once no
 * user points at it, and listeners hear of every change (the socket layer publishes
 * `avatar-updated`). On any failure the previous avatar stays and no new file is left.
 */
import path from 'node:path';
import { AVATAR_UPLOAD } from '@voice/protocol';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { UserRepository } from '../users/UserRepository.ts';
import { configureSharp, renderAvatar } from './AvatarImage.ts';
import { AvatarStore } from './AvatarStore.ts';
import { prepareTempDir, type UploadedFile } from './upload.ts';

/** Told after a user's avatar_url changed; errors are logged, never returned to the request. */
export type AvatarChangedListener = (userId: string, avatarUrl: string | null) => void | Promise<void>;

export interface AvatarServiceOptions {
  users: UserRepository;
  logger: Logger;
  /** DATA_DIR: files go to `avatars/`, uploads in progress to `tmp/`. */
  dataDir: string;
  onAvatarChanged?: AvatarChangedListener;
}

export class AvatarService {
  readonly #users: UserRepository;
  readonly #logger: Logger;
  readonly #onAvatarChanged: AvatarChangedListener | undefined;

  private constructor(
    options: AvatarServiceOptions,
    /** Where uploaded avatars are stored and served from. */
    readonly store: AvatarStore,
    /** Where multipart uploads are streamed before processing. */
    readonly tmpDir: string,
  ) {
    this.#users = options.users;
    this.#logger = options.logger;
    this.#onAvatarChanged = options.onAvatarChanged;
  }

  static async create(options: AvatarServiceOptions): Promise<AvatarService> {
    configureSharp();
    const tmpDir = path.join(options.dataDir, 'tmp');
    await prepareTempDir(tmpDir);
    const store = await AvatarStore.create(path.join(options.dataDir, 'avatars'));
    return new AvatarService(options, store, tmpDir);
  }

  /** Makes `file` the user's avatar and returns its URL. */
  async upload(userId: string, file: UploadedFile): Promise<string> {
    if (file.size === 0) throw new AppError('INVALID_IMAGE');
    if (file.size > AVATAR_UPLOAD.maxBytes) throw new AppError('IMAGE_TOO_LARGE');
    const image = await renderAvatar(file.path);
    const url = await this.store.save(image);
    let previous: string | null;
    try {
      const updated = await this.#users.updateProfile(userId, { avatarUrl: url });
      if (!updated) throw new AppError('USER_NOT_FOUND');
      previous = updated.previousAvatarUrl;
    } catch (error) {
      await this.#release(url);
      throw error;
    }
    await this.changed(userId, previous, url);
    return url;
  }

  /** After a user's avatar went from `previous` to `current`: frees the old upload, tells the listener. */
  async changed(userId: string, previous: string | null, current: string | null): Promise<void> {
    if (previous === current) return;
    await this.#release(previous);
    if (!this.#onAvatarChanged) return;
    try {
      await this.#onAvatarChanged(userId, current);
    } catch (error) {
      this.#logger.error('avatar change listener failed', { userId, error });
    }
  }

  /** Deletes an uploaded file nobody points at any more (each upload has its own file; the check is a safeguard). */
  async #release(url: string | null): Promise<void> {
    if (!AvatarStore.isUploadedUrl(url)) return;
    try {
      if (!(await this.#users.avatarInUse(url))) await this.store.remove(url);
    } catch (error) {
      // An orphaned file costs a few kilobytes; the request has succeeded or failed already.
      this.#logger.warn('could not delete a replaced avatar', { url, error });
    }
  }
}
