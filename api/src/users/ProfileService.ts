/** Profile changes: display name, language, theme, voice settings, stock avatar, onboarding. Inputs are already validated. */
import {
  type LanguageCode,
  type StockAvatarId,
  stockAvatarUrl,
  type Theme,
  type VoiceSettings,
} from '@voice/protocol';
import type { AvatarService } from '../avatars/AvatarService.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { ProfileChanges, UserRepository, UserRow } from './UserRepository.ts';

/** A validated PUT /users/profile body. */
export interface ProfileUpdate {
  display_name?: string | undefined;
  language?: LanguageCode | undefined;
  theme?: Theme | undefined;
  voice_settings?: VoiceSettings | undefined;
  avatar?: StockAvatarId | undefined;
  completeOnboarding?: true | undefined;
}

/** Told after a display name really changed, to tell friends and the person's other tabs. */
export type DisplayNameChangedListener = (userId: string, displayName: string | null) => Promise<void>;

export interface ProfileServiceOptions {
  /** Where a failing listener is reported. */
  logger?: Logger;
  onDisplayNameChanged?: DisplayNameChangedListener;
}

export class ProfileService {
  readonly #logger: Logger | undefined;
  readonly #onDisplayNameChanged: DisplayNameChangedListener | undefined;

  constructor(
    readonly users: UserRepository,
    readonly avatars: AvatarService,
    options: ProfileServiceOptions = {},
  ) {
    this.#logger = options.logger;
    this.#onDisplayNameChanged = options.onDisplayNameChanged;
  }

  /** Applies `update` to the user's profile and returns the new row. */
  async update(userId: string, update: ProfileUpdate): Promise<UserRow> {
    const changes: ProfileChanges = {};
    if (update.display_name !== undefined) changes.displayName = update.display_name;
    if (update.language !== undefined) changes.language = update.language;
    if (update.theme !== undefined) changes.theme = update.theme;
    if (update.voice_settings !== undefined) changes.voiceSettings = update.voice_settings;
    if (update.avatar !== undefined) changes.avatarUrl = stockAvatarUrl(update.avatar);
    // Onboarding ends with its last step (avatar chosen or skipped), so a reload mid-way resumes it.
    if (update.completeOnboarding) changes.onboarded = true;

    const updated = await this.users.updateProfile(userId, changes);
    if (!updated) throw new AppError('USER_NOT_FOUND');
    const { row } = updated;
    if (changes.avatarUrl !== undefined) {
      await this.avatars.changed(userId, updated.previousAvatarUrl, row.avatar_url);
    }
    if (row.display_name !== updated.previousDisplayName && this.#onDisplayNameChanged) {
      try {
        await this.#onDisplayNameChanged(userId, row.display_name);
      } catch (error) {
        // The change is saved; friends see it at their next load instead of at once.
        this.#logger?.error('display name change listener failed', { userId, error });
      }
    }
    return row;
  }
}
