/**
 * The Rooms tab's list: rooms you may see, searched by name, reloaded on demand, and kept
 * live over the app socket while the tab is open (`watch-rooms`): rooms created, changed,
 * filled, emptied and deleted show at once.
 */
import type { Room } from '@voice/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { type ErrorMessage, errorMessage } from '../../api/errorMessage.ts';
import { roomsApi } from '../../api/rooms.ts';
import { currentLanguage } from '../../i18n/i18n.ts';
import { useAppSocket, useSocketEvent } from '../../socket/useAppSocket.ts';
import { withRoomRemoved, withRoomUpdated } from './roomDirectoryState.ts';

/** Typing pauses this long before the list is searched. */
const SEARCH_DELAY_MS = 250;

export interface RoomDirectory {
  rooms: readonly Room[];
  status: 'loading' | 'ready' | 'error';
  error: ErrorMessage | null;
  query: string;
  setQuery(query: string): void;
  reload(): void;
}

export function useRoomDirectory(): RoomDirectory {
  const [rooms, setRooms] = useState<readonly Room[]>([]);
  const [status, setStatus] = useState<RoomDirectory['status']>('loading');
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [query, setQuery] = useState('');
  const [version, setVersion] = useState(0);
  const first = useRef(true);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` asks for a reload.
  useEffect(() => {
    const controller = new AbortController();
    const delay = first.current ? 0 : SEARCH_DELAY_MS;
    first.current = false;
    const timer = setTimeout(() => {
      roomsApi.list(query.trim(), controller.signal).then(
        (answer) => {
          setRooms(answer.rooms);
          setStatus('ready');
          setError(null);
        },
        (failure: unknown) => {
          if (controller.signal.aborted) return;
          setStatus('error');
          setError(errorMessage(failure, currentLanguage()));
        },
      );
    }, delay);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query, version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);

  const socket = useAppSocket();
  useEffect(() => {
    if (!socket) return;
    const watch = () =>
      socket
        .request('watch-rooms', {})
        .catch((failure: unknown) => console.warn('Watching rooms failed', failure));
    if (socket.status === 'connected') void watch();
    // Every new connection watches again; after a lost one, the list reloads what was missed.
    const off = socket.onOpen(({ reconnected }) => {
      void watch();
      if (reconnected) reload();
    });
    return () => {
      off();
      if (socket.status === 'connected') socket.request('unwatch-rooms', {}).catch(() => {});
    };
  }, [socket, reload]);
  // The search typed so far, for changes that arrive between two loads.
  const latestQuery = useRef(query);
  useEffect(() => {
    latestQuery.current = query;
  }, [query]);
  useSocketEvent('room-updated', ({ room }) =>
    setRooms((current) => withRoomUpdated(current, room, latestQuery.current)),
  );
  useSocketEvent('room-removed', ({ roomId }) => setRooms((current) => withRoomRemoved(current, roomId)));

  return { rooms, status, error, query, setQuery, reload };
}
