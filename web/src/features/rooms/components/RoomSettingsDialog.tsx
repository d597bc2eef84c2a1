/**
 * The admin's room settings: name, description, password (kept, changed or removed), type, size,
 * voices heard at once.
 */
import { ROOM_LIMITS, type Room, type RoomType, type UpdateRoomBody } from '@voice/protocol';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type ErrorMessage, errorMessage } from '../../../api/errorMessage.ts';
import { roomsApi } from '../../../api/rooms.ts';
import { currentLanguage } from '../../../i18n/i18n.ts';
import { Checkbox } from '../../../ui/Checkbox.tsx';
import { PasswordField } from '../../../ui/PasswordField.tsx';
import { TextField } from '../../../ui/TextField.tsx';
import { LoudestField } from './LoudestField.tsx';
import { RoomFormDialog, RoomNameFields, roomNameProblem } from './RoomForm.tsx';
import { RoomTypeField } from './RoomTypeField.tsx';

interface Props {
  room: Room;
  onClose(): void;
  onSaved(room: Room): void;
}

export function RoomSettingsDialog({ room, onClose, onSaved }: Props) {
  const { t } = useTranslation();
  const [name, setName] = useState(room.name);
  const [description, setDescription] = useState(room.description ?? '');
  const [type, setType] = useState<RoomType>(room.type);
  const [maxParticipants, setMaxParticipants] = useState(String(room.maxParticipants));
  const [loudest, setLoudest] = useState(room.loudest);
  const [newPassword, setNewPassword] = useState('');
  const [removePassword, setRemovePassword] = useState(false);
  const [nameError, setNameError] = useState<string | null>(null);
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    const problem = roomNameProblem(name);
    setNameError(problem);
    if (problem) return;
    const body: UpdateRoomBody = {
      name: name.trim(),
      description: description.trim() || null,
      type,
      maxParticipants: Number(maxParticipants),
      loudest,
    };
    if (removePassword) body.password = null;
    else if (newPassword) body.password = newPassword;
    setBusy(true);
    setError(null);
    try {
      onSaved((await roomsApi.update(room.id, body)).room);
    } catch (failure) {
      setError(errorMessage(failure, currentLanguage()));
      setBusy(false);
    }
  };

  return (
    <RoomFormDialog
      title={t('rooms.settings.title')}
      submitLabel={t('rooms.settings.save')}
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
      <TextField
        label={t('rooms.settings.maxParticipants')}
        name="room-size"
        type="number"
        min={ROOM_LIMITS.minParticipants}
        max={room.stage ? ROOM_LIMITS.maxStageParticipants : ROOM_LIMITS.maxParticipants}
        value={maxParticipants}
        onChange={(event) => setMaxParticipants(event.target.value)}
      />
      <LoudestField value={loudest} onChange={setLoudest} />
      <PasswordField
        label={t(room.hasPassword ? 'rooms.settings.newPassword' : 'rooms.create.password')}
        labelNote={t('rooms.create.optional')}
        name="room-password"
        value={newPassword}
        disabled={removePassword}
        maxLength={ROOM_LIMITS.passwordMax}
        autoComplete="new-password"
        onChange={(event) => setNewPassword(event.target.value)}
      />
      {room.hasPassword && (
        <Checkbox
          name="remove-password"
          checked={removePassword}
          onChange={(event) => setRemovePassword(event.target.checked)}
        >
          {t('rooms.settings.removePassword')}
        </Checkbox>
      )}
      <RoomTypeField value={type} onChange={setType} />
    </RoomFormDialog>
  );
}
