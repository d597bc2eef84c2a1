/** The Rooms tab's list: rooms you may see, searched by name, reloaded on demand. */
import type { Room } from '@voice/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { type ErrorMessage, errorMessage } from '../../api/errorMessage.ts';
import { roomsApi } from '../../api/rooms.ts';
import { currentLanguage } from '../../i18n/i18n.ts';

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
  return { rooms, status, error, query, setQuery, reload };
}
