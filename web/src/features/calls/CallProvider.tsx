/**
 * One-to-one calls above every page (beside FriendsProvider): while someone is signed in and
 * the app socket exists, one CallSession per tab, so a call rings and keeps going whichever
 * page is open. Logout (the socket goes) and page unload end the call, stop the ringtone and
 * forget the TURN credentials. The machinery and the call interface load on demand.
 */
import type { UserSummary } from '@voice/protocol';
import {
  type ReactNode,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { useTranslation } from 'react-i18next';
import { LazyPart } from '../../lib/LazyPart.tsx';
import { loadChunk } from '../../lib/loadChunk.ts';
import { nameOf } from '../../lib/people.ts';
import type { HeldVoice, VoiceClaim } from '../../media/OneVoice.ts';
import { useHeldVoice, useOneVoice } from '../../media/OneVoiceProvider.tsx';
import { showPageNotification } from '../../notifications/pageNotifications.ts';
import { useAppSocket } from '../../socket/useAppSocket.ts';
import type { CallController, MissedCall } from './CallController.ts';
import type { CallMediaState } from './CallSession.ts';
import type { CallRuntime } from './callRuntime.ts';
import { type CallState, initialCallState } from './callState.ts';
import { MissedCallToast } from './MissedCallToast.tsx';
import { CallContext, type CallViewModel } from './useCall.ts';

const loadCallOverlay = () =>
  import('./CallOverlay.tsx').then(({ CallOverlay }) => ({ default: CallOverlay }));

const IDLE_MEDIA: CallMediaState = { muted: false, microphoneWarning: null, peerMuted: false };
/**
 * How long a call asked for before the call machinery has loaded (a click on Call right after
 * the page opened, on a slow machine) waits for it; past this the click is let go.
 */
const LOADING_WAIT_MS = 15_000;
const noop = () => {};

export function CallProvider({ children }: { children: ReactNode }) {
  const socket = useAppSocket();
  const [runtime, setRuntime] = useState<CallRuntime | null>(null);
  const [peer, setPeer] = useState<UserSummary | null>(null);
  const [minimized, setMinimized] = useState(false);

  useEffect(() => {
    if (!socket) return;
    let created: CallRuntime | null = null;
    let gone = false;
    const unload = () => created?.session.dispose();
    window.addEventListener('pagehide', unload);
    loadChunk(() => import('./callRuntime.ts'))
      .then(({ createCallRuntime }) => {
        if (gone) return;
        created = createCallRuntime(socket);
        setRuntime(created);
      })
      .catch((error: unknown) => console.error('Calls could not load', error));
    return () => {
      gone = true;
      window.removeEventListener('pagehide', unload);
      created?.dispose();
      setRuntime(null);
    };
  }, [socket]);

  const session = runtime?.session ?? null;
  const [missed, setMissed] = useState<readonly MissedCall[]>([]);
  const { t: translate } = useTranslation();
  useEffect(() => {
    if (!session) return;
    return session.controller.onMissed((call) => {
      setMissed((current) => [...current, call]);
      // Away from the tab: the browser says so too (the page's own notification).
      if (document.hidden) {
        void showPageNotification({
          tag: `missed-call-${call.callId}`,
          title: translate('call.missed.title'),
          body: translate('call.missed.from', { name: nameOf(call.caller) }),
          icon: call.caller.avatar_url,
          data: { type: 'missed-call', callId: call.callId },
        }).catch((error: unknown) => console.debug('Missed-call notification not shown', error));
      }
    });
  }, [session, translate]);
  const state = useSyncExternalStore(
    useCallback((onChange: () => void) => session?.controller.subscribe(onChange) ?? noop, [session]),
    () => session?.controller.state ?? initialCallState,
  );
  const media = useSyncExternalStore(
    useCallback((onChange: () => void) => session?.onMediaChange(onChange) ?? noop, [session]),
    () => session?.media ?? IDLE_MEDIA,
  );

  // A new call starts full size.
  const inCall = state.active !== null;
  useEffect(() => {
    if (!inCall) setMinimized(false);
  }, [inCall]);

  // One voice at a time: a call placed or answered here holds the microphone, and taking it
  // from a room asks first (OneVoice).
  const { t } = useTranslation();
  const voice = useOneVoice();
  const other = peerOf(state, peer);
  const otherName = other ? nameOf(other) : t('call.someone');
  const controller = session?.controller;
  const holding = (state.active !== null && state.active.phase !== 'ended') || state.placing !== null;
  const held = useMemo<HeldVoice | null>(
    () => (holding && controller ? { kind: 'call', name: otherName, leave: () => controller.end() } : null),
    [holding, controller, otherName],
  );
  useHeldVoice(held);
  // The controller as soon as it is there, for a call asked for before (whenLoaded).
  const loaded = useRef<CallController | null>(null);
  const waiting = useRef(new Set<(controller: CallController | null) => void>());
  useEffect(() => {
    loaded.current = controller ?? null;
    if (controller) for (const done of [...waiting.current]) done(controller);
  }, [controller]);
  // A question about answering a call that stopped ringing is withdrawn.
  const asking = useRef<VoiceClaim | null>(null);
  const incomingId = state.incoming?.callId ?? null;
  useEffect(() => {
    if (!incomingId && asking.current) voice.withdraw(asking.current);
  }, [incomingId, voice]);

  // One function per session: a new one would make every level subscriber start over (and
  // redraw) with each change of the state.
  const onLocalLevel = useCallback<CallViewModel['onLocalLevel']>(
    (listener) => session?.onLocalLevel(listener) ?? noop,
    [session],
  );
  const value = useMemo<CallViewModel>(() => {
    /** The controller, waiting for the call machinery to load (null when it did not in time). */
    const whenLoaded = (): Promise<CallController | null> => {
      if (loaded.current) return Promise.resolve(loaded.current);
      return new Promise((resolve) => {
        const done = (ready: CallController | null) => {
          clearTimeout(timer);
          waiting.current.delete(done);
          resolve(ready);
        };
        const timer = setTimeout(() => done(null), LOADING_WAIT_MS);
        waiting.current.add(done);
      });
    };
    const claim = async (wanted: VoiceClaim) => {
      asking.current = wanted;
      try {
        return await voice.claim(wanted);
      } finally {
        if (asking.current === wanted) asking.current = null;
      }
    };
    return {
      state,
      peer: other,
      // A click before the call machinery has loaded waits for it instead of doing nothing.
      startCall: (user) => {
        void claim({ kind: 'call', action: 'call', name: nameOf(user) }).then(async (yes) => {
          if (!yes) return;
          const ready = await whenLoaded();
          if (!ready) {
            console.warn('Calls did not load in time; the call was not placed');
            return;
          }
          setPeer(user);
          void ready.startCall(user.id);
        });
      },
      accept: () => {
        if (!controller) return;
        void claim({ kind: 'call', action: 'answer', name: otherName }).then((yes) => {
          if (yes) void controller.accept();
        });
      },
      reject: () => controller?.reject(),
      notificationDismissed: (callId) => controller?.notificationDismissed(callId),
      end: () => controller?.end(),
      dismissOutcome: () => controller?.dismissOutcome(),
      microphoneError:
        state.outcome === 'microphone-required' ? (runtime?.microphone.lastError ?? null) : null,
      microphoneWarning: media.microphoneWarning,
      muted: media.muted,
      peerMuted: media.peerMuted,
      setMuted: (muted) => session?.setMuted(muted),
      setTransmitting: (open) => session?.setTransmitting(open),
      connectionStats: async () => (await session?.connectionStats()) ?? [],
      minimized,
      setMinimized,
      onLocalLevel,
      missed,
      seeMissed: () => setMissed((current) => (current.length === 0 ? current : [])),
    };
  }, [runtime, session, controller, state, media, other, otherName, voice, minimized, missed, onLocalLevel]);

  return (
    <CallContext.Provider value={value}>
      {children}
      <MissedCallToast />
      {/* A call rings, and goes on, over whichever page is open. */}
      {session && <LazyPart load={loadCallOverlay} name="The call overlay" />}
    </CallContext.Provider>
  );
}

/**
 * The other party: the caller of a ringing or answered call, whom we are calling, or the
 * person of the call that just ended (for the card that follows it).
 */
function peerOf(state: CallState, target: UserSummary | null): UserSummary | null {
  if (state.incoming) return state.incoming.caller;
  if (state.active?.peer) return state.active.peer;
  if (!state.active && !state.placing && state.ending?.peer) return state.ending.peer;
  const id = state.active?.peerUserId ?? state.placing?.targetUserId ?? state.ending?.peerUserId;
  return target && target.id === id ? target : null;
}
