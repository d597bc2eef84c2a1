/**
 * The notification-permission prompt (spec section 2), shown once after login on mobile and
 * Safari browsers, which only ask for permission after a tap. Turning notifications on asks
 * the browser; a refusal shows how to unblock them in this browser.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../ui/Button.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { BlockedGuidance } from './BlockedGuidance.tsx';

interface Props {
  /** Asks for permission and subscribes; rejects when permission was not granted. */
  onEnable: () => Promise<void>;
  onClose: () => void;
}

export function NotificationPrompt({ onEnable, onClose }: Props) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState(false);

  async function enable() {
    setBusy(true);
    try {
      await onEnable();
      onClose();
    } catch (error) {
      console.info('Notifications were not turned on', error);
      setBusy(false);
      setRefused(true);
    }
  }

  return (
    <Dialog
      title={t('notifications.prompt.title')}
      closeLabel={t('notifications.prompt.later')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {t('notifications.prompt.later')}
          </Button>
          {!refused && (
            <Button busy={busy} onClick={() => void enable()}>
              {t('notifications.prompt.enable')}
            </Button>
          )}
        </>
      }
    >
      <p>{t('notifications.prompt.text')}</p>
      {refused && <BlockedGuidance />}
    </Dialog>
  );
}
