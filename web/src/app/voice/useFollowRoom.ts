/**
 * A room just joined, from wherever (the list, an invitation, a notification, creating one),
 * opens its screen; being in a room does not pull you back to it once you have left its screen.
 */
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import { useRoom } from '../../features/rooms/useRoom.ts';
import { roomPath } from '../../session/paths.ts';

export function useFollowRoom(): void {
  const navigate = useNavigate();
  const { state } = useRoom();
  const followed = useRef<string | null>(null);
  const roomId = state.status === 'idle' ? null : (state.room?.id ?? null);

  useEffect(() => {
    if (roomId === followed.current) return;
    followed.current = roomId;
    if (roomId && window.location.pathname !== roomPath(roomId)) navigate(roomPath(roomId));
  }, [roomId, navigate]);
}
