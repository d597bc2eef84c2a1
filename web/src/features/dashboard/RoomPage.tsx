/**
 * A room's own screen, /rooms/:roomId: a link that can be shared. Opened by someone not in the
 * room yet, it joins (asking for the password when the room has one, unless it is theirs);
 * the participants fill the main area, and the list of rooms stays beside them (behind a
 * button on a phone) for switching rooms. Mute, deafen and leave are in the voice panel.
 */
import type { Room } from '@voice/protocol';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { isNetworkError, NETWORK_RETRY } from '../../api/client.ts';
import { type ErrorMessage, errorMessage } from '../../api/errorMessage.ts';
import { roomsApi } from '../../api/rooms.ts';
import { currentLanguage } from '../../i18n/i18n.ts';
import { withRetry } from '../../lib/retry.ts';
import { PATHS } from '../../session/paths.ts';
import { useSession } from '../../session/useSession.ts';
import { ConnectionBanner } from '../../socket/ConnectionBanner.tsx';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { RoomIcon } from '../../ui/icons.tsx';
import { useFriendsContext } from '../friends/FriendsProvider.tsx';
import { JoinPasswordDialog } from '../rooms/components/JoinPasswordDialog.tsx';
import { RoomsPanel } from '../rooms/components/RoomsPanel.tsx';
import { RoomView } from '../rooms/components/RoomView.tsx';
import { useRoom } from '../rooms/useRoom.ts';
import { DashboardHeader } from './DashboardHeader.tsx';
import './DashboardPage.css';
import './RoomPage.css';

export function RoomPage() {
  const { t } = useTranslation();
  const { roomId = '' } = useParams();
  const { user } = useSession();
  const friends = useFriendsContext();
  const session = useRoom();
  const { state } = session;
  const [asking, setAsking] = useState<Room | null>(null);
  // Why the room could not be looked up; `again` when trying later may help (no answer came).
  const [failure, setFailure] = useState<(ErrorMessage & { again: boolean }) | null>(null);
  const [roomsOpen, setRoomsOpen] = useState(false);
  // The room last seen here, for its name once you have left it.
  const [known, setKnown] = useState<Room | null>(null);
  const arrivedFor = useRef<string | null>(null);
  const inThisRoom =
    state.status !== 'idle' && (state.room?.id === roomId || (!state.room && state.status === 'joining'));

  useEffect(() => {
    if (state.room?.id === roomId) setKnown(state.room);
  }, [state.room, roomId]);

  // Arriving by a link (or from another room's screen): join this room, once per arrival. A
  // lookup that got no answer (a dropped connection) is asked again before it is shown.
  const join = async () => {
    setFailure(null);
    try {
      const { room } = await withRetry(() => roomsApi.get(roomId), NETWORK_RETRY);
      setKnown(room);
      if (room.hasPassword && room.admin.id !== user?.id) setAsking(room);
      else await session.join(room.id, { name: room.name });
    } catch (error) {
      setFailure({ ...errorMessage(error, currentLanguage()), again: isNetworkError(error) });
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per room id; join reads the latest state
  useEffect(() => {
    if (arrivedFor.current === roomId) return;
    arrivedFor.current = roomId;
    setRoomsOpen(false);
    if (!inThisRoom) void join();
  }, [roomId]);

  const name = (state.room?.id === roomId ? state.room.name : known?.name) ?? '';
  const ended = state.status === 'idle' ? state.ended : null;

  return (
    <div className="dashboard room-page">
      <title>{`${name || t('dashboard.tabs.rooms')} · ${t('app.name')}`}</title>
      <DashboardHeader />
      <main className="room-page__main">
        <ConnectionBanner />
        <div className="room-page__layout" data-rooms-open={roomsOpen}>
          <nav className="room-page__rooms" aria-label={t('roomPage.rooms')}>
            <Link className="room-page__back" to={PATHS.dashboard}>
              {t('roomPage.dashboard')}
            </Link>
            <RoomsPanel showEnded={false} />
          </nav>
          <div className="room-page__stage">
            <Button
              variant="secondary"
              className="room-page__rooms-toggle"
              aria-expanded={roomsOpen}
              onClick={() => setRoomsOpen((open) => !open)}
            >
              <RoomIcon /> {t(roomsOpen ? 'roomPage.hideRooms' : 'roomPage.rooms')}
            </Button>
            {inThisRoom && state.room && <RoomView friends={friends.friends} />}
            {inThisRoom && !state.room && <p className="room-page__status">{t('rooms.view.joining')}</p>}
            {!inThisRoom && (
              <section className="room-page__away" aria-label={name || t('dashboard.tabs.rooms')}>
                {name && <h2 className="room-view__name">{name}</h2>}
                {ended && <FormAlert>{t(`rooms.ended.${ended}`)}</FormAlert>}
                {!ended && state.error && <FormAlert>{t(state.error.key, state.error.values)}</FormAlert>}
                {failure && <FormAlert>{t(failure.key, failure.values)}</FormAlert>}
                {!ended && !state.error && !failure && name && (
                  <p className="room-page__status">{t('roomPage.notIn', { name })}</p>
                )}
                <div className="room-page__actions">
                  {ended !== 'closed' && (!failure || failure.again) && (
                    <Button
                      onClick={() => {
                        session.dismiss();
                        void join();
                      }}
                    >
                      {t('roomPage.join')}
                    </Button>
                  )}
                  <Link className="button button--secondary" to={PATHS.dashboard}>
                    {t('roomPage.dashboard')}
                  </Link>
                </div>
              </section>
            )}
          </div>
        </div>
      </main>
      {asking && (
        <JoinPasswordDialog room={asking} onClose={() => setAsking(null)} onJoined={() => setAsking(null)} />
      )}
    </div>
  );
}
