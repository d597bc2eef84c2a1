import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/useSession.ts';
import { ConnectionBanner } from '../../socket/ConnectionBanner.tsx';
import { useFriendsContext } from '../friends/FriendsProvider.tsx';
import { RequestToast } from '../friends/RequestToast.tsx';
import { UserSearch } from '../friends/UserSearch.tsx';
import { DashboardHeader } from './DashboardHeader.tsx';
import { DashboardTabs } from './DashboardTabs.tsx';
import './DashboardPage.css';

/** The signed-in home: header, then people search beside the tabs (stacked on phones). */
export function DashboardPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const friends = useFriendsContext();
  if (!user) return null;
  const name = user.display_name || user.username;

  return (
    <div className="dashboard">
      <title>{`${t('dashboard.title')} · ${t('app.name')}`}</title>
      <DashboardHeader />
      <main className="dashboard__main">
        <div className="dashboard__intro">
          <h1 className="dashboard__title">{t('dashboard.welcome', { name })}</h1>
          <p className="dashboard__subtitle">{t('dashboard.subtitle')}</p>
        </div>
        <ConnectionBanner />
        <div className="dashboard__layout">
          <div className="dashboard__aside">
            <UserSearch friends={friends} />
          </div>
          <div className="dashboard__content">
            <DashboardTabs friends={friends} />
          </div>
        </div>
      </main>
      <RequestToast arrival={friends.arrival} onDismiss={friends.dismissArrival} />
    </div>
  );
}
