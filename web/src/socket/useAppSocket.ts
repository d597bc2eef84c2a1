/** React access to the app socket: the client, its status and typed event subscriptions. */
import type { ServerEventName, ServerEvents } from '@voice/protocol';
import { useCallback, useContext, useEffect, useLayoutEffect, useRef, useSyncExternalStore } from 'react';
import type { AppSocket, SocketOpenInfo, SocketStatus } from './AppSocket.ts';
import { SocketContext } from './SocketProvider.tsx';

/** The running socket, or null while signed out. */
export function useAppSocket(): AppSocket | null {
  return useContext(SocketContext);
}

/** The socket's connection status; 'idle' while there is none. */
export function useSocketStatus(): SocketStatus {
  const socket = useAppSocket();
  const subscribe = useCallback(
    (onChange: () => void) => (socket ? socket.onStatusChange(onChange) : () => {}),
    [socket],
  );
  return useSyncExternalStore(subscribe, () => socket?.status ?? 'idle');
}

/** Calls the latest `handler` with each `event` from the server. */
export function useSocketEvent<E extends ServerEventName>(
  event: E,
  handler: (data: ServerEvents[E]) => void,
): void {
  const socket = useAppSocket();
  const latest = useRef(handler);
  useLayoutEffect(() => {
    latest.current = handler;
  });
  useEffect(() => socket?.on(event, (data) => latest.current(data)), [socket, event]);
}

/**
 * Calls the latest `handler` each time the socket (re)connects, and once at once when it is
 * already open as the component subscribes: on the same machine a connection can open before
 * a large first render (the dashboard mounting with the signed-in providers) has subscribed.
 */
export function useSocketOpen(handler: (info: SocketOpenInfo) => void): void {
  const socket = useAppSocket();
  const latest = useRef(handler);
  useLayoutEffect(() => {
    latest.current = handler;
  });
  useEffect(() => {
    if (!socket) return;
    const unsubscribe = socket.onOpen((info) => latest.current(info));
    if (socket.status === 'connected') latest.current({ reconnected: false });
    return unsubscribe;
  }, [socket]);
}
