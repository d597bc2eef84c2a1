/**
 * The group room above every page (beside CallProvider), so a room stays connected while the
 * person moves between tabs and pages. Its machinery loads with the first join; logout leaves.
 */
import {
  type ReactNode,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { loadChunk } from '../../lib/loadChunk.ts';
import type { HeldVoice } from '../../media/OneVoice.ts';
import { useHeldVoice, useOneVoice } from '../../media/OneVoiceProvider.tsx';
import { useSession } from '../../session/useSession.ts';
import { useSocketEvent } from '../../socket/useAppSocket.ts';
import type { RoomSession } from './RoomSession.ts';
import { idleRoomState } from './roomState.ts';
import { RoomContext, type RoomViewModel } from './useRoom.ts';

const noop = () => {};
const log = (what: string) => (error: unknown) => console.warn(what, error);

export function RoomProvider({ children }: { children: ReactNode }) {
  const { status, user } = useSession();
  const me =
    status === 'authenticated' && user
      ? { id: user.id, displayName: user.display_name || user.username }
      : null;
  const [session, setSession] = useState<RoomSession | null>(null);
  const loading = useRef<Promise<RoomSession> | null>(null);
  const meRef = useRef(me);
  meRef.current = me;
  const userId = me?.id ?? null;

  // Logout (or another person signing in) leaves the room.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the cleanup runs when the person changes.
  useEffect(() => {
    return () => {
      const current = loading.current;
      loading.current = null;
      setSession(null);
      void current?.then((created) => created.dispose());
    };
  }, [userId]);

  const ensureSession = useCallback((): Promise<RoomSession> => {
    if (!loading.current) {
      const who = meRef.current;
      if (!who) return Promise.reject(new Error('Not signed in'));
      const loaded = loadChunk(() => import('./roomRuntime.ts')).then(({ createRoomSession }) => {
        const created = createRoomSession(who);
        setSession(created);
        return created;
      });
      loading.current = loaded;
      // A chunk that did not come is asked for again by the next join.
      loaded.catch(() => {
        if (loading.current === loaded) loading.current = null;
      });
    }
    return loading.current;
  }, []);

  useEffect(() => {
    if (!session) return;
    const leaveOnUnload = () => void session.leave();
    window.addEventListener('pagehide', leaveOnUnload);
    return () => window.removeEventListener('pagehide', leaveOnUnload);
  }, [session]);

  // The room renamed or changed by its admin: the members inside see it at once (the room's
  // screen watches the rooms, so the change reaches it).
  useSocketEvent('room-updated', ({ room }) => session?.roomChanged(room));

  const state = useSyncExternalStore(
    useCallback((onChange: () => void) => session?.subscribe(onChange) ?? noop, [session]),
    () => session?.state ?? idleRoomState,
  );

  // One voice at a time: the room holds the microphone from the moment it is known, and going
  // into one from a call asks first (OneVoice).
  const voice = useOneVoice();
  const roomName = state.status !== 'idle' ? (state.room?.name ?? null) : null;
  const held = useMemo<HeldVoice | null>(
    () =>
      session && roomName !== null ? { kind: 'room', name: roomName, leave: () => session.leave() } : null,
    [session, roomName],
  );
  useHeldVoice(held);

  // One function per session: a new one would make every level subscriber start over (and
  // redraw) with each change of the state.
  const onLocalLevel = useCallback<RoomViewModel['onLocalLevel']>(
    (listener) => session?.onLocalLevel(listener) ?? noop,
    [session],
  );
  const value = useMemo<RoomViewModel>(
    () => ({
      state,
      join: async (roomId, { password, name = null } = {}) =>
        (await voice.claim({ kind: 'room', name })) && (await ensureSession()).join(roomId, password),
      acceptInvitation: async (invitationId, roomId, name = null) =>
        (await voice.claim({ kind: 'room', name })) &&
        (await ensureSession()).acceptInvitation(invitationId, roomId),
      leave: async () => session?.leave(),
      connectionStats: async () => (await session?.connectionStats()) ?? [],
      setTransmitting: (open) => session?.setTransmitting(open),
      onLocalLevel,
      setMuted: (muted) => void session?.setMuted(muted),
      setDeafened: (deafened) => void session?.setDeafened(deafened),
      setVolume: (peerId, volume) => session?.setVolume(peerId, volume),
      mutePeer: (peerId) => void session?.mutePeer(peerId)?.catch(log('Muting a member failed')),
      unmutePeer: (peerId) => void session?.unmutePeer(peerId)?.catch(log('Unmuting a member failed')),
      kick: (peerId) => void session?.kick(peerId)?.catch(log('Removing a member failed')),
      raiseHand: async (raised) => session?.raiseHand(raised),
      inviteToSpeak: async (peerId) => session?.inviteToSpeak(peerId),
      moveToAudience: async (peerId) => session?.moveToAudience(peerId),
      roomChanged: (room) => session?.roomChanged(room),
      dismiss: () => session?.dismiss(),
    }),
    [state, session, ensureSession, voice, onLocalLevel],
  );

  return <RoomContext.Provider value={value}>{children}</RoomContext.Provider>;
}
