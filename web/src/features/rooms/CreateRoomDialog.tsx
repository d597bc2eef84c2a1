/** The create-room form (spec section 2): name, description, password, type. */
import { ROOM_LIMITS, type Room, type RoomType } from '@voice/protocol';
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type ErrorMessage, errorMessage } from '../../api/errorMessage.ts';
import { roomsApi } from '../../api/rooms.ts';
import { currentLanguage } from '../../i18n/i18n.ts';
import { Button } from '../../ui/Button.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { PasswordField } from '../../ui/PasswordField.tsx';
import { TextField } from '../../ui/TextField.tsx';
import { RoomTypeField } from './RoomTypeField.tsx';

interface Props {
  onClose(): void;
  /** The room was made; `password` is the one chosen, to join with. */
  onCreated(room: Room, password: string | undefined): void;
}

export function CreateRoomDialog({ onClose, onCreated }: Props) {
  const { t } = useTranslation();
  const formId = useId();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [password, setPassword] = useState('');
  const [type, setType] = useState<RoomType>('public');
  const [busy, setBusy] = useState(false);
  const [nameError, setNameError] = useState<string | null>(null);
  const [error, setError] = useState<ErrorMessage | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setNameError(t('rooms.create.nameRequired'));
      return;
    }
    if (trimmed.length > ROOM_LIMITS.nameMax) {
      setNameError(t('errors.ROOM_NAME_TOO_LONG'));
      return;
    }
    setNameError(null);
    setError(null);
    setBusy(true);
    try {
      const { room } = await roomsApi.create({
        name: trimmed,
        type,
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(password ? { password } : {}),
      });
      onCreated(room, password || undefined);
    } catch (failure) {
      setError(errorMessage(failure, currentLanguage()));
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={t('rooms.create.title')}
      onClose={onClose}
      closeLabel={t('call.dismiss')}
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            {t('rooms.create.cancel')}
          </Button>
          <Button type="submit" form={formId} busy={busy}>
            {t('rooms.create.submit')}
          </Button>
        </>
      }
    >
      <form id={formId} className="rooms-form" noValidate onSubmit={(event) => void submit(event)}>
        {error && <FormAlert>{t(error.key, error.values)}</FormAlert>}
        <TextField
          label={t('rooms.create.name')}
          name="room-name"
          value={name}
          error={nameError}
          autoComplete="off"
          onChange={(event) => setName(event.target.value)}
        />
        <TextField
          label={t('rooms.create.description')}
          labelNote={t('rooms.create.optional')}
          name="room-description"
          value={description}
          maxLength={ROOM_LIMITS.descriptionMax}
          autoComplete="off"
          onChange={(event) => setDescription(event.target.value)}
        />
        <PasswordField
          label={t('rooms.create.password')}
          labelNote={t('rooms.create.optional')}
          name="room-password"
          value={password}
          maxLength={ROOM_LIMITS.passwordMax}
          autoComplete="new-password"
          hint={t('rooms.create.passwordHint')}
          onChange={(event) => setPassword(event.target.value)}
        />
        <RoomTypeField value={type} onChange={setType} />
      </form>
    </Dialog>
  );
}
