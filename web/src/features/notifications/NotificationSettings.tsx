/**
 * The notifications part of profile settings (spec section 2): the permission as enabled,
 * blocked or not set; push on this browser on or off; a test notification; how to unblock
 * notifications in this browser; and sounds on or off.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { setSoundsEnabled, soundsEnabled } from '../../media/sounds.ts';
import { Button } from '../../ui/Button.tsx';
import { Checkbox } from '../../ui/Checkbox.tsx';
import { BlockedGuidance } from './BlockedGuidance.tsx';
import { useNotifications } from './useNotifications.ts';

const STATUS_KEYS = {
  granted: 'notifications.status.enabled',
  denied: 'notifications.status.blocked',
  default: 'notifications.status.notSet',
} as const;

const FEEDBACK_KEYS = {
  testSent: 'notifications.settings.testSent',
  testFailed: 'notifications.settings.testFailed',
  switchFailed: 'notifications.settings.switchFailed',
} as const;

type Feedback = keyof typeof FEEDBACK_KEYS | null;

export function NotificationSettings() {
  const { t } = useTranslation();
  const { pushSupported, permission, subscribed, setPushEnabled, sendTest } = useNotifications();
  const [sounds, setSounds] = useState(soundsEnabled);
  const [busy, setBusy] = useState(false);
  const [feedback, setFeedback] = useState<Feedback>(null);

  async function run(work: () => Promise<void>, success: Feedback, failure: Feedback) {
    setBusy(true);
    setFeedback(null);
    try {
      await work();
      setFeedback(success);
    } catch (error) {
      console.info('Notification settings', error);
      setFeedback(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="notification-settings">
      <p>
        {t('notifications.status.label')}{' '}
        <strong>{t(permission ? STATUS_KEYS[permission] : 'notifications.status.unsupported')}</strong>
      </p>
      {pushSupported && permission !== null && (
        <Checkbox
          name="pushNotifications"
          checked={subscribed}
          disabled={busy || permission === 'denied'}
          onChange={(event) => {
            const enabled = event.currentTarget.checked;
            void run(() => setPushEnabled(enabled), null, 'switchFailed');
          }}
        >
          {t('notifications.settings.push')}
        </Checkbox>
      )}
      {permission === 'denied' && <BlockedGuidance />}
      {subscribed && (
        <Button variant="secondary" busy={busy} onClick={() => void run(sendTest, 'testSent', 'testFailed')}>
          {t('notifications.settings.test')}
        </Button>
      )}
      {feedback && <p role="status">{t(FEEDBACK_KEYS[feedback])}</p>}
      <Checkbox
        name="sounds"
        checked={sounds}
        onChange={(event) => {
          const enabled = event.currentTarget.checked;
          setSoundsEnabled(enabled);
          setSounds(enabled);
        }}
      >
        {t('notifications.settings.sounds')}
      </Checkbox>
    </div>
  );
}
