/** Profile changes: display name, language, stock avatar, onboarding. Inputs are already validated. */
import { type LanguageCode, type StockAvatarId, stockAvatarUrl } from '@voice/protocol';
import type { AvatarService } from '../avatars/AvatarService.ts';
import { AppError } from '../errors.ts';
import type { ProfileChanges, UserRepository, UserRow } from './UserRepository.ts';

/** A validated PUT /users/profile body. */
export interface ProfileUpdate {
  display_name?: string | undefined;
  language?: LanguageCode | undefined;
  avatar?: StockAvatarId | undefined;
  completeOnboarding?: true | undefined;
}

export class ProfileService {
  constructor(
    readonly users: UserRepository,
    readonly avatars: AvatarService,
  ) {}

  /** Applies `update` to the user's profile and returns the new row. */
  async update(userId: string, update: ProfileUpdate): Promise<UserRow> {
    const changes: ProfileChanges = {};
    if (update.display_name !== undefined) changes.displayName = update.display_name;
    if (update.language !== undefined) changes.language = update.language;
    if (update.avatar !== undefined) changes.avatarUrl = stockAvatarUrl(update.avatar);
    // Onboarding ends with its last step (avatar chosen or skipped), so a reload mid-way resumes it.
    if (update.completeOnboarding) changes.onboarded = true;

    const updated = await this.users.updateProfile(userId, changes);
    if (!updated) throw new AppError('USER_NOT_FOUND');
    if (changes.avatarUrl !== undefined) {
      await this.avatars.changed(userId, updated.previousAvatarUrl, updated.row.avatar_url);
    }
    return updated.row;
  }
}
