/** Profile pictures: stored, resized, served as files, and announced when they change. */
import type { UserRepository } from '../users/UserRepository.ts';
import type { Infrastructure } from '../wiring.ts';
import { AvatarService } from './AvatarService.ts';
import { avatarFiles } from './serve.ts';

export async function wireAvatars(
  { config, notifier, logger }: Infrastructure,
  { users, friendIds }: { users: UserRepository; friendIds: (userId: string) => Promise<string[]> },
) {
  const avatars = await AvatarService.create({
    users,
    logger,
    dataDir: config.dataDir,
    // Friends' lists and the person's own other tabs show the new picture at once.
    onAvatarChanged: async (userId, avatarUrl) => {
      await notifier.notifyMany([userId, ...(await friendIds(userId))], 'avatar-updated', {
        userId,
        avatar_url: avatarUrl,
      });
    },
  });
  return { avatars, files: [avatarFiles(avatars.store)] };
}
