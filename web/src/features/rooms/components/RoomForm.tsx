/** What the create-room form and the room settings share: the dialog with its form, name and description. */
import { ROOM_LIMITS, roomNameTooLong } from '@voice/protocol';
import { type FormEvent, type ReactNode, useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { ErrorMessage } from '../../../api/errorMessage.ts';
import { Button } from '../../../ui/Button.tsx';
import { Dialog } from '../../../ui/Dialog.tsx';
import { FormAlert } from '../../../ui/FormAlert.tsx';
import { TextField } from '../../../ui/TextField.tsx';

/** The translation key of what is wrong with a room name, or null (spec section 5). */
export function roomNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return 'rooms.create.nameRequired';
  return roomNameTooLong(trimmed) ? 'errors.ROOM_NAME_TOO_LONG' : null;
}

interface DialogProps {
  title: string;
  submitLabel: string;
  busy: boolean;
  error: ErrorMessage | null;
  onClose(): void;
  onSubmit(): void;
  children: ReactNode;
}

export function RoomFormDialog({
  title,
  submitLabel,
  busy,
  error,
  onClose,
  onSubmit,
  children,
}: DialogProps) {
  const { t } = useTranslation();
  const formId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <Dialog
      title={title}
      onClose={onClose}
      closeLabel={t('call.dismiss')}
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            {t('rooms.create.cancel')}
          </Button>
          <Button type="submit" form={formId} busy={busy}>
            {submitLabel}
          </Button>
        </>
      }
    >
      <form id={formId} className="rooms-form" noValidate onSubmit={submit}>
        {error && <FormAlert>{t(error.key, error.values)}</FormAlert>}
        {children}
      </form>
    </Dialog>
  );
}

interface NameProps {
  name: string;
  description: string;
  /** Translation key of the name's problem. */
  nameError: string | null;
  onName(name: string): void;
  onDescription(description: string): void;
}

export function RoomNameFields({ name, description, nameError, onName, onDescription }: NameProps) {
  const { t } = useTranslation();
  return (
    <>
      <TextField
        label={t('rooms.create.name')}
        name="room-name"
        value={name}
        error={nameError ? t(nameError) : null}
        autoComplete="off"
        onChange={(event) => onName(event.target.value)}
      />
      <TextField
        label={t('rooms.create.description')}
        labelNote={t('rooms.create.optional')}
        name="room-description"
        value={description}
        maxLength={ROOM_LIMITS.descriptionMax}
        autoComplete="off"
        onChange={(event) => onDescription(event.target.value)}
      />
    </>
  );
}
