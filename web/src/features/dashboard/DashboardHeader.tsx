import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/useSession.ts';
import { ThemeToggle } from '../../theme/ThemeToggle.tsx';
import { Button } from '../../ui/Button.tsx';
import { LogOutIcon } from '../../ui/icons.tsx';
import { Logo } from '../../ui/Logo.tsx';
import { Avatar } from './Avatar.tsx';

/** The dashboard's top bar: the signed-in user and the session controls. */
export function DashboardHeader() {
  const { t } = useTranslation();
  const { user, signOut } = useSession();
  const [signingOut, setSigningOut] = useState(false);
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
          <div className="dashboard__user" data-testid="current-user">
            <Avatar name={name} url={user.avatar_url} />
            <div className="dashboard__user-text">
              <span className="dashboard__user-name">{name}</span>
              <span className="dashboard__user-handle">@{user.username}</span>
            </div>
          </div>
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
    </header>
  );
}
