/**
 * The signed-in user's friends, above every page: one view-model per app, its loads and its
 * app socket subscriptions running whichever page is open, so what arrives on the socket
 * (a request, and next an incoming call or a room invitation) reaches any page.
 * Mounted beside SocketProvider; inert while signed out.
 */
import { createContext, type ReactNode, useContext } from 'react';
import { useSession } from '../../session/useSession.ts';
import { type FriendsViewModel, useFriends } from './useFriends.ts';

const FriendsContext = createContext<FriendsViewModel | null>(null);

export function FriendsProvider({ children }: { children: ReactNode }) {
  const { status, user } = useSession();
  const userId = status === 'authenticated' ? (user?.id ?? null) : null;
  const friends = useFriends(userId);
  return <FriendsContext.Provider value={userId ? friends : null}>{children}</FriendsContext.Provider>;
}

/** The friends view-model; throws outside FriendsProvider or while signed out. */
export function useFriendsContext(): FriendsViewModel {
  const friends = useContext(FriendsContext);
  if (!friends) throw new Error('useFriendsContext must be used within a FriendsProvider, while signed in');
  return friends;
}
