import { type KeyboardEvent, type ReactNode, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { InboxIcon, PhoneIcon, RoomIcon, UsersIcon } from '../../ui/icons.tsx';

const TABS = ['all', 'friends', 'rooms', 'calls'] as const;
type Tab = (typeof TABS)[number];

/** Each tab's label and its empty state, until the features behind them arrive. */
const CONTENT: Record<Tab, { label: string; title: string; text: string; icon: ReactNode }> = {
  all: {
    label: 'dashboard.tabs.all',
    title: 'dashboard.empty.all.title',
    text: 'dashboard.empty.all.text',
    icon: <InboxIcon />,
  },
  friends: {
    label: 'dashboard.tabs.friends',
    title: 'dashboard.empty.friends.title',
    text: 'dashboard.empty.friends.text',
    icon: <UsersIcon />,
  },
  rooms: {
    label: 'dashboard.tabs.rooms',
    title: 'dashboard.empty.rooms.title',
    text: 'dashboard.empty.rooms.text',
    icon: <RoomIcon />,
  },
  calls: {
    label: 'dashboard.tabs.calls',
    title: 'dashboard.empty.calls.title',
    text: 'dashboard.empty.calls.text',
    icon: <PhoneIcon />,
  },
};

/** The dashboard's sections as ARIA tabs (arrow keys, Home and End move between them). */
export function DashboardTabs() {
  const { t } = useTranslation();
  const id = useId();
  const [active, setActive] = useState<Tab>('all');
  const tabRefs = useRef(new Map<Tab, HTMLButtonElement>());

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
            {t(CONTENT[tab].label)}
          </button>
        ))}
      </div>
      <section
        className="dashboard-tabs__panel"
        role="tabpanel"
        id={`${id}-panel`}
        aria-labelledby={`${id}-tab-${active}`}
      >
        <div className="empty-state">
          <div className="empty-state__icon">{CONTENT[active].icon}</div>
          <h2 className="empty-state__title">{t(CONTENT[active].title)}</h2>
          <p className="empty-state__text">{t(CONTENT[active].text)}</p>
        </div>
      </section>
    </div>
  );
}
