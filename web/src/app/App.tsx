import { useCallback } from 'react';
import { RouterProvider } from 'react-router-dom';
import { CallProvider } from '../features/calls/CallProvider.tsx';
import { FriendsProvider } from '../features/friends/FriendsProvider.tsx';
import { NotificationsProvider } from '../features/notifications/NotificationsProvider.tsx';
import { RoomProvider } from '../features/rooms/RoomProvider.tsx';
import { PATHS, VISITOR_PATHS } from '../session/guards.tsx';
import { SessionProvider } from '../session/SessionProvider.tsx';
import { SocketProvider } from '../socket/SocketProvider.tsx';
import type { AppRouter } from './router.tsx';

export function App({ router }: { router: AppRouter }) {
  // After a 401 the user goes to /login, unless already on a visitor page (a reset link
  // opened with a stale token should still work).
  const onExpired = useCallback(() => {
    if (!VISITOR_PATHS.includes(router.state.location.pathname)) {
      void router.navigate(PATHS.login, { replace: true });
    }
  }, [router]);
  return (
    <SessionProvider onExpired={onExpired}>
      <SocketProvider>
        {/* Above the pages, so what arrives on the socket reaches whichever page is open. */}
        <FriendsProvider>
          <CallProvider>
            <RoomProvider>
              <NotificationsProvider>
                <RouterProvider router={router} />
              </NotificationsProvider>
            </RoomProvider>
          </CallProvider>
        </FriendsProvider>
      </SocketProvider>
    </SessionProvider>
  );
}
