/**
 * Keeps the signed-in user's own profile current when it changes in another tab or
 * device: the server sends `profile-updated` and `avatar-updated` to the person's own
 * sockets as well as to their friends.
 */
import { useSocketEvent } from '../socket/useAppSocket.ts';
import { useSession } from './useSession.ts';

export function useLiveProfile(): void {
  const { patchUser } = useSession();
  // Field by field, so an event never reverts a fresher answer the session already holds.
  useSocketEvent('profile-updated', ({ userId, display_name }) => patchUser(userId, { display_name }));
  useSocketEvent('avatar-updated', ({ userId, avatar_url }) => patchUser(userId, { avatar_url }));
}
