/**
 * The create-room form (spec section 2): name, description, password, type, voices heard at once,
 * and whether it is a stage (fixed once made).
 */
import { FORWARDING, ROOM_LIMITS, type Room, type RoomType } from '@voice/protocol';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type ErrorMessage, errorMessage } from '../../../api/errorMessage.ts';
import { roomsApi } from '../../../api/rooms.ts';
import { currentLanguage } from '../../../i18n/i18n.ts';
import { Checkbox } from '../../../ui/Checkbox.tsx';
import { PasswordField } from '../../../ui/PasswordField.tsx';
import { LoudestField } from './LoudestField.tsx';
import { RoomFormDialog, RoomNameFields, roomNameProblem } from './RoomForm.tsx';
import { RoomTypeField } from './RoomTypeField.tsx';

interface Props {
  onClose(): void;
  /** The room was made; `password` is the one chosen, to join with. */
  onCreated(room: Room, password: string | undefined): void;
}

export function CreateRoomDialog({ onClose, onCreated }: Props) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [password, setPassword] = useState('');
  const [type, setType] = useState<RoomType>('public');
  const [loudest, setLoudest] = useState<number>(FORWARDING.loudestDefault);
  const [stage, setStage] = useState(false);
  const [busy, setBusy] = useState(false);
  const [nameError, setNameError] = useState<string | null>(null);
  const [error, setError] = useState<ErrorMessage | null>(null);

  const submit = async () => {
    const problem = roomNameProblem(name);
    setNameError(problem);
    if (problem) return;
    setError(null);
    setBusy(true);
    try {
      const { room } = await roomsApi.create({
        name: name.trim(),
        type,
        loudest,
        stage,
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
    <RoomFormDialog
      title={t('rooms.create.title')}
      submitLabel={t('rooms.create.submit')}
      busy={busy}
      error={error}
      onClose={onClose}
      onSubmit={() => void submit()}
    >
      <RoomNameFields
        name={name}
        description={description}
        nameError={nameError}
        onName={setName}
        onDescription={setDescription}
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
      <LoudestField value={loudest} onChange={setLoudest} />
      <Checkbox name="room-stage" checked={stage} onChange={(event) => setStage(event.target.checked)}>
        <strong>{t('rooms.create.stage')}</strong> {t('rooms.create.stageHint')}
      </Checkbox>
    </RoomFormDialog>
  );
}
