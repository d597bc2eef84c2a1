import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/useSession.ts';
import { DashboardHeader } from './DashboardHeader.tsx';
import { DashboardTabs } from './DashboardTabs.tsx';
import './DashboardPage.css';

/** The signed-in home: header with the user and session controls, then the tabs. */
export function DashboardPage() {
  const { t } = useTranslation();
  const { user } = useSession();
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
        <DashboardTabs />
      </main>
    </div>
  );
}
