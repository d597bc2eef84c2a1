/** Asks for a room's password before joining it; a wrong one is said in the dialog. */
import type { Room } from '@voice/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../ui/Button.tsx';
import { Dialog } from '../../../ui/Dialog.tsx';
import { FormAlert } from '../../../ui/FormAlert.tsx';
import { PasswordField } from '../../../ui/PasswordField.tsx';
import { useRoom } from '../useRoom.ts';

export function JoinPasswordDialog({
  room,
  onClose,
  onJoined,
}: {
  room: Room;
  onClose(): void;
  onJoined(): void;
}) {
  const { t } = useTranslation();
  const session = useRoom();
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const formId = `join-${room.id}`;
  const error = session.state.error;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const joined = await session.join(room.id, { password, name: room.name });
    setBusy(false);
    if (joined) onJoined();
  };

  return (
    <Dialog
      title={t('rooms.password.title', { name: room.name })}
      onClose={onClose}
      closeLabel={t('call.dismiss')}
      footer={
        <Button type="submit" form={formId} busy={busy}>
          {t('rooms.join')}
        </Button>
      }
    >
      <form id={formId} className="rooms-form" onSubmit={(event) => void submit(event)}>
        {error && <FormAlert>{t(error.key, error.values)}</FormAlert>}
        <PasswordField
          label={t('rooms.password.label')}
          name="room-password"
          value={password}
          required
          autoComplete="off"
          onChange={(event) => setPassword(event.target.value)}
        />
      </form>
    </Dialog>
  );
}
