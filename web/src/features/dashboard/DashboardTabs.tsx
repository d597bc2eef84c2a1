import type { User } from '@voice/protocol';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../ui/Button.tsx';
import { RoomIcon } from '../../ui/icons.tsx';
import { CallButton } from '../calls/CallButton.tsx';
import { CallHistory } from '../calls/CallHistory.tsx';
import { useCall } from '../calls/useCall.ts';
import { FriendsPanel } from '../friends/FriendsPanel.tsx';
import type { FriendsViewModel } from '../friends/useFriends.ts';
import { RoomInvitations } from '../rooms/components/RoomInvitations.tsx';
import { RoomsPanel } from '../rooms/components/RoomsPanel.tsx';
import { useRoom } from '../rooms/useRoom.ts';

const TABS = ['all', 'friends', 'rooms', 'calls'] as const;
type Tab = (typeof TABS)[number];

const LABELS: Record<Tab, string> = {
  all: 'dashboard.tabs.all',
  friends: 'dashboard.tabs.friends',
  rooms: 'dashboard.tabs.rooms',
  calls: 'dashboard.tabs.calls',
};

/** The dashboard's sections as ARIA tabs (arrow keys, Home and End move between them). */
/** A friend's call button: the friends panel shows it, the calls feature makes it. */
const callButton = (friend: User) => <CallButton user={friend} />;

export function DashboardTabs({ friends }: { friends: FriendsViewModel }) {
  const { t } = useTranslation();
  const id = useId();
  const [active, setActive] = useState<Tab>('all');
  const tabRefs = useRef(new Map<Tab, HTMLButtonElement>());
  const pending = friends.state.requests.length;
  const call = useCall();
  const missed = call.missed.length;
  const { seeMissed } = call;
  // Looking at the call history is seeing the missed calls.
  useEffect(() => {
    if (active === 'calls' && missed > 0) seeMissed();
  }, [active, missed, seeMissed]);

  const select = (tab: Tab) => {
    setActive(tab);
    tabRefs.current.get(tab)?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = TABS.indexOf(active);
    const moves: Record<string, number> = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1,
      Home: 0,
      End: TABS.length - 1,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    select(TABS[(target + TABS.length) % TABS.length] ?? 'all');
  };

  return (
    <div className="dashboard-tabs">
      <div
        className="dashboard-tabs__list"
        role="tablist"
        aria-label={t('dashboard.tabsLabel')}
        onKeyDown={onKeyDown}
      >
        {TABS.map((tab) => (
          <button
            key={tab}
            ref={(element) => {
              if (element) tabRefs.current.set(tab, element);
              else tabRefs.current.delete(tab);
            }}
            type="button"
            role="tab"
            id={`${id}-tab-${tab}`}
            aria-selected={active === tab}
            aria-controls={`${id}-panel`}
            tabIndex={active === tab ? 0 : -1}
            className="dashboard-tabs__tab"
            onClick={() => setActive(tab)}
          >
            {t(LABELS[tab])}
            {tab === 'calls' && missed > 0 && (
              <>
                <span className="dashboard-tabs__badge" aria-hidden="true">
                  {missed}
                </span>
                <span className="visually-hidden">{t('call.missed.badge', { count: missed })}</span>
              </>
            )}
            {tab === 'all' && pending > 0 && (
              <>
                <span className="dashboard-tabs__badge" aria-hidden="true">
                  {pending}
                </span>
                <span className="visually-hidden">{t('friends.requests.pending', { count: pending })}</span>
              </>
            )}
          </button>
        ))}
      </div>
      <section
        className="dashboard-tabs__panel"
        role="tabpanel"
        id={`${id}-panel`}
        aria-labelledby={`${id}-tab-${active}`}
      >
        {active === 'all' && (
          <>
            <RoomInvitations />
            <FriendsPanel
              friends={friends}
              view="overview"
              onShowAllFriends={() => select('friends')}
              callAction={callButton}
            />
          </>
        )}
        {active === 'friends' && (
          <FriendsPanel
            friends={friends}
            view="list"
            onShowAllFriends={() => select('friends')}
            callAction={callButton}
          />
        )}
        {active === 'rooms' && <RoomsPanel />}
        {active === 'calls' && <CallHistory />}
      </section>
      {active !== 'rooms' && <RoomEndedBar />}
    </div>
  );
}

/**
 * When the room ends for you (closed, removed, connection lost) while you look at another tab:
 * why, until dismissed. Where you are while in a room is in the voice panel.
 */
function RoomEndedBar() {
  const { t } = useTranslation();
  const { state, dismiss } = useRoom();
  if (!state.ended || (state.room && state.status !== 'idle')) return null;
  return (
    <section className="room-bar room-bar--ended" role="status" aria-label={t('rooms.bar.label')}>
      <RoomIcon />
      <span className="room-bar__text">{t(`rooms.ended.${state.ended}`)}</span>
      <Button variant="ghost" onClick={dismiss}>
        {t('call.dismiss')}
      </Button>
    </section>
  );
}
