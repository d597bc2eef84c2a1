/**
 * What only a signed-in person needs above every page: the app socket, friends, one-to-one
 * calls, the group room (one voice at a time between them) and notifications, so that what arrives on the socket reaches
 * whichever page is open, and the person's own profile follows changes made elsewhere. A chunk of its own with their libraries (protoo-client, and
 * mediasoup-client through the room), which the visitor pages never load (SignedInLayer).
 */
import type { ReactNode } from 'react';
import { CallProvider } from '../features/calls/CallProvider.tsx';
import { FriendsProvider } from '../features/friends/FriendsProvider.tsx';
import { NotificationsProvider } from '../features/notifications/NotificationsProvider.tsx';
import { useNotifications } from '../features/notifications/useNotifications.ts';
import { RoomProvider } from '../features/rooms/RoomProvider.tsx';
import { OneVoiceProvider } from '../media/OneVoiceProvider.tsx';
import { useLiveProfile } from '../session/useLiveProfile.ts';
import { useSession } from '../session/useSession.ts';
import { SocketProvider } from '../socket/SocketProvider.tsx';
import { NotificationActions } from './NotificationActions.tsx';
import { VoicePanel } from './voice/VoicePanel.tsx';

export function SignedInProviders({ children }: { children: ReactNode }) {
  return (
    <SocketProvider>
      <FriendsProvider>
        {/* The call and the room share one microphone: one voice at a time. */}
        <OneVoiceProvider>
          <CallProvider>
            <RoomProvider>
              <NotificationsProvider>
                <LiveProfile />
                <WorkerActions />
                {children}
                <VoicePanel />
              </NotificationsProvider>
            </RoomProvider>
          </CallProvider>
        </OneVoiceProvider>
      </FriendsProvider>
    </SocketProvider>
  );
}

/** What the notifications' worker posts (answer a call, accept a friend, join a room) is carried out. */
function WorkerActions() {
  const { subscribed } = useNotifications();
  const { status } = useSession();
  return status === 'authenticated' ? <NotificationActions pushActive={subscribed} /> : null;
}

/** The person's own profile follows changes made in another tab or device. */
function LiveProfile() {
  useLiveProfile();
  return null;
}
