/**
 * A reload (or a tab restored) within 30 s of leaving a room by unloading the page takes you
 * back into it: the room's screen opens and joins, asking for the password if the room has one.
 * The page leaves the room as it unloads (RoomProvider), so a reload never holds a seat twice.
 *
 * This tab's session storage remembers the room while you are in it; leaving it yourself, or
 * being removed, forgets it; unloading stamps the time. What the page does as it unloads
 * (sockets closing, the room left) must not be taken for you leaving, hence the stamp.
 */
import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { roomPath } from '../../session/paths.ts';

export const REJOIN_WITHIN_MS = 30_000;
const KEY = 'voiceRoomBeforeUnload';
/** The page is being unloaded: what happens to the room now is not the person's doing. */
let unloading = false;

interface Marker {
  roomId: string;
  /** When the page unloaded; null while it has not. */
  at: number | null;
}

function read(): Marker | null {
  try {
    const marker = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<Marker> | null;
    return typeof marker?.roomId === 'string'
      ? { roomId: marker.roomId, at: typeof marker.at === 'number' ? marker.at : null }
      : null;
  } catch {
    return null;
  }
}

function write(marker: Marker | null): void {
  try {
    if (marker) sessionStorage.setItem(KEY, JSON.stringify(marker));
    else sessionStorage.removeItem(KEY);
  } catch {
    // Without storage a reload simply does not rejoin.
  }
}

/** You left the room yourself (or were removed): a reload does not bring you back. */
export function forgetRoomForReload(): void {
  write(null);
}

/** `roomId`: the room you are connected to now, or null. */
export function useRejoinAfterReload(roomId: string | null): void {
  const navigate = useNavigate();

  // Once, at start: back into the room the page was unloaded in, if that was a moment ago.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per page load, not per navigation
  useEffect(() => {
    const marker = read();
    write(null);
    if (marker?.at == null || Date.now() - marker.at >= REJOIN_WITHIN_MS) return;
    if (window.location.pathname !== roomPath(marker.roomId))
      navigate(roomPath(marker.roomId), { replace: true });
  }, []);

  useEffect(() => {
    const stamp = () => {
      unloading = true;
      const marker = read();
      if (marker) write({ ...marker, at: Date.now() });
    };
    const leaving = () => {
      unloading = true;
    };
    // Back from the back-forward cache: the page lives on, so what happens to the room is again the person's doing.
    const back = (event: PageTransitionEvent) => {
      if (event.persisted) unloading = false;
    };
    window.addEventListener('pageshow', back);
    // Capturing, so they run before any other part of the page reacts to the unload.
    window.addEventListener('beforeunload', leaving, { capture: true });
    window.addEventListener('pagehide', stamp, { capture: true });
    return () => {
      window.removeEventListener('beforeunload', leaving, { capture: true });
      window.removeEventListener('pagehide', stamp, { capture: true });
      window.removeEventListener('pageshow', back);
    };
  }, []);

  useEffect(() => {
    if (roomId) write({ roomId, at: null });
    // Out of the room while the page stays (left for a call, the connection given up): forgotten.
    else if (!unloading) write(null);
  }, [roomId]);
}
