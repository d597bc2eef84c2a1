import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/useSession.ts';
import { ThemeToggle } from '../../theme/ThemeToggle.tsx';
import { Avatar } from '../../ui/Avatar.tsx';
import { Button } from '../../ui/Button.tsx';
import { LogOutIcon, SettingsIcon } from '../../ui/icons.tsx';
import { Logo } from '../../ui/Logo.tsx';
import { NotificationSettings } from '../notifications/NotificationSettings.tsx';
import { ProfileDialog } from '../profile/ProfileDialog.tsx';
import './DashboardHeader.css';

/** The dashboard's top bar: the signed-in user (opening the profile settings) and the session controls. */
export function DashboardHeader() {
  const { t } = useTranslation();
  const { user, signOut } = useSession();
  const [signingOut, setSigningOut] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  if (!user) return null;
  const name = user.display_name || user.username;

  const logout = async () => {
    setSigningOut(true);
    await signOut();
  };

  return (
    <header className="dashboard__header">
      <div className="dashboard__header-inner">
        <Logo />
        <div className="dashboard__session">
          <button
            type="button"
            className="dashboard__user dashboard-header__profile"
            data-testid="current-user"
            aria-haspopup="dialog"
            title={t('profile.open')}
            onClick={() => setSettingsOpen(true)}
          >
            <Avatar name={name} url={user.avatar_url} />
            <span className="dashboard__user-text">
              <span className="dashboard__user-name">{name}</span>
              <span className="dashboard__user-handle">@{user.username}</span>
            </span>
            <span className="dashboard-header__settings-icon">
              <SettingsIcon />
            </span>
            <span className="visually-hidden">{t('profile.open')}</span>
          </button>
          <ThemeToggle />
          <Button
            variant="secondary"
            className="dashboard__logout"
            onClick={logout}
            busy={signingOut}
            aria-label={t('dashboard.logout')}
          >
            <LogOutIcon />
            <span className="dashboard__logout-text">{t('dashboard.logout')}</span>
          </Button>
        </div>
      </div>
      {settingsOpen && (
        <ProfileDialog
          user={user}
          notificationSettings={<NotificationSettings />}
          onClose={() => setSettingsOpen(false)}
        />
      )}
    </header>
  );
}
