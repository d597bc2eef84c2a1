/**
 * What notifications do while someone is signed in (spec sections 4 and 7): carries out the
 * service worker's messages (accept or reject a call, accept a friend request, join a room),
 * including one passed in the address of a window the worker opened; tells the API whether
 * the tab is visible (`set-visibility`: it pushes only to people who do not see the app);
 * plays the short sound of an arriving request or invitation; and, while the tab is hidden
 * and push is not set up, shows the page's own notifications.
 */
import { CALL_RING_TIMEOUT_MS, callNotificationTag, type NotificationWorkerMessage } from '@voice/protocol';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCall } from '../features/calls/useCall.ts';
import { useFriendsContext } from '../features/friends/FriendsProvider.tsx';
import { useRoom } from '../features/rooms/useRoom.ts';
import { createNotificationSound } from '../media/sounds.ts';
import { type PageNotification, showPageNotification } from '../notifications/pageNotifications.ts';
import { MESSAGE_QUERY_KEY, messageFromQuery, parseWorkerMessage } from '../notifications/workerMessages.ts';
import { useAppSocket, useSocketEvent, useSocketOpen } from '../socket/useAppSocket.ts';

/** Reads the message a window opened by the worker carries, and takes it out of the address. */
function takeQueryMessage(): NotificationWorkerMessage | null {
  const message = messageFromQuery(window.location.search);
  const url = new URL(window.location.href);
  if (!url.searchParams.has(MESSAGE_QUERY_KEY)) return null;
  url.searchParams.delete(MESSAGE_QUERY_KEY);
  window.history.replaceState(window.history.state, '', url);
  return message;
}

export function NotificationActions({ pushActive }: { pushActive: boolean }) {
  const { t } = useTranslation();
  const call = useCall();
  const friends = useFriendsContext();
  const room = useRoom();
  const socket = useAppSocket();
  // A call message may come before the call does (a window just opened): it waits for it.
  const [pendingCall, setPendingCall] = useState<NotificationWorkerMessage | null>(null);

  const perform = useRef<(message: NotificationWorkerMessage) => void>(() => {});
  perform.current = (message) => {
    switch (message.type) {
      case 'accept-call':
      case 'reject-call':
      case 'call-dismissed':
        setPendingCall(message);
        break;
      case 'accept-friend-request':
        void friends.accept(message.userId);
        break;
      case 'join-room':
        void (message.invitationId
          ? room.acceptInvitation(message.invitationId, message.roomId)
          : room.join(message.roomId));
        break;
    }
  };

  useEffect(() => {
    const fromAddress = takeQueryMessage();
    if (fromAddress) perform.current(fromAddress);
    const worker = navigator.serviceWorker;
    if (!worker) return;
    const onMessage = (event: MessageEvent) => {
      const message = parseWorkerMessage(event.data);
      if (message) perform.current(message);
    };
    worker.addEventListener('message', onMessage);
    return () => worker.removeEventListener('message', onMessage);
  }, []);

  // The call message applies to the call it names once this tab knows it, or never.
  const incomingId = call.state.incoming?.callId ?? null;
  const latestCall = useRef(call);
  latestCall.current = call;
  useEffect(() => {
    if (!pendingCall || !('callId' in pendingCall)) return;
    if (incomingId !== pendingCall.callId) {
      const expire = setTimeout(() => setPendingCall(null), CALL_RING_TIMEOUT_MS);
      return () => clearTimeout(expire);
    }
    setPendingCall(null);
    const current = latestCall.current;
    if (pendingCall.type === 'accept-call') current.accept();
    else if (pendingCall.type === 'reject-call') current.reject();
    else current.notificationDismissed(pendingCall.callId);
    return undefined;
  }, [pendingCall, incomingId]);

  // The API pushes only to people who do not see the app; it may not know this request yet.
  useSocketOpen(() => reportVisibility());
  function reportVisibility() {
    socket
      ?.request('set-visibility', { visible: document.visibilityState === 'visible' })
      .catch((error: unknown) => console.debug('set-visibility was not taken', error));
  }
  useEffect(() => {
    const onChange = () => reportVisibility();
    document.addEventListener('visibilitychange', onChange);
    return () => document.removeEventListener('visibilitychange', onChange);
  });

  const sound = useRef<ReturnType<typeof createNotificationSound> | null>(null);
  useEffect(() => {
    const created = createNotificationSound();
    sound.current = created;
    return () => created.dispose();
  }, []);

  /** The page's own notification, only where push does not already bring one. */
  function notify(notification: PageNotification) {
    if (pushActive || document.visibilityState === 'visible') return;
    showPageNotification(notification).catch((error: unknown) =>
      console.debug('The notification could not be shown', error),
    );
  }

  useSocketEvent('incoming-call', ({ callId, caller }) =>
    notify({
      tag: callNotificationTag(callId),
      title: t('notifications.page.incomingCall', { name: caller.display_name ?? caller.username }),
      body: t('notifications.page.incomingCallBody'),
      icon: caller.avatar_url,
      data: { type: 'incoming-call', callId },
    }),
  );
  useSocketEvent('friend-request-received', ({ from }) => {
    sound.current?.play();
    notify({
      tag: `friend-request:${from.id}`,
      title: t('notifications.page.friendRequest'),
      body: t('notifications.page.friendRequestBody', { name: from.display_name ?? from.username }),
      icon: from.avatar_url,
      data: { type: 'friend-request', userId: from.id },
    });
  });
  useSocketEvent('room-invitation-received', ({ invitation }) => {
    sound.current?.play();
    notify({
      tag: `room-invitation:${invitation.id}`,
      title: t('notifications.page.roomInvitation'),
      body: t('notifications.page.roomInvitationBody', {
        name: invitation.inviter_display_name ?? invitation.inviter_username,
        room: invitation.room_name,
      }),
      icon: null,
      data: { type: 'room-invitation', roomId: invitation.room_id, invitationId: invitation.id },
    });
  });

  return null;
}
