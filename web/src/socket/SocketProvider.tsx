/**
 * Runs the app socket while someone is signed in: connects after sign-in (or session
 * restore), with a new socket ticket for every attempt, disconnects on logout, drops the
 * connection when the browser goes offline and retries at once when it comes back.
 */
import { createContext, type ReactNode, useEffect, useState } from 'react';
import { authApi } from '../api/auth.ts';
import { ApiError } from '../api/client.ts';
import { socketApi } from '../api/socket.ts';
import { getToken } from '../session/tokenStorage.ts';
import { useSession } from '../session/useSession.ts';
import { AppSocket } from './AppSocket.ts';
import { createProtooPeer } from './protooPeer.ts';

export const SocketContext = createContext<AppSocket | null>(null);

/**
 * Whether to keep reconnecting: a revoked session answers 401, which the API client turns
 * into a trip to /login; anything else (a restart, no network) is worth another attempt.
 */
async function sessionStillValid(): Promise<boolean> {
  try {
    await authApi.me();
    return true;
  } catch (error) {
    return !(error instanceof ApiError && error.status === 401);
  }
}

/**
 * A ticket for the next handshake. A 401 has already removed the token and sent the person to
 * /login (the API client does that for any 401): nothing to connect with. Any other failure
 * (no network, a busy server) rejects, and the socket backs off as after a failed connect.
 */
async function nextTicket(): Promise<string | null> {
  if (!getToken()) return null;
  try {
    return (await socketApi.ticket()).ticket;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export function SocketProvider({ children }: { children: ReactNode }) {
  const { status, user } = useSession();
  const userId = status === 'authenticated' ? (user?.id ?? null) : null;
  const [socket, setSocket] = useState<AppSocket | null>(null);

  useEffect(() => {
    if (!userId) return;
    const client = new AppSocket({
      ticket: nextTicket,
      location: window.location,
      createPeer: createProtooPeer,
      checkSession: sessionStillValid,
    });
    const online = () => client.retryNow();
    const offline = () => client.networkDown();
    window.addEventListener('online', online);
    window.addEventListener('offline', offline);
    client.start();
    setSocket(client);
    return () => {
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
      client.close();
      setSocket(null);
    };
  }, [userId]);

  return <SocketContext.Provider value={socket}>{children}</SocketContext.Provider>;
}
