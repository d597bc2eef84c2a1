import type { ReactNode } from 'react';
import { Button } from './Button.tsx';
import { Dialog } from './Dialog.tsx';
import { FormAlert } from './FormAlert.tsx';

interface Props {
  /** The question, naming what it is about ("Remove Bob from the room?"). */
  title: string;
  /** What follows from saying yes. */
  children: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  /** The action is under way: the confirm button spins, nothing closes. */
  busy?: boolean;
  /** Why the last try failed, already translated. */
  error?: string | null;
  onConfirm(): void;
  /** Cancel, Escape, the close button or the backdrop. */
  onCancel(): void;
}

/** A question before something that cannot be taken back (removing someone, deleting a room). */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  cancelLabel,
  busy = false,
  error = null,
  onConfirm,
  onCancel,
}: Props) {
  return (
    <Dialog
      title={title}
      closeLabel={cancelLabel}
      onClose={() => {
        if (!busy) onCancel();
      }}
      footer={
        <>
          <Button variant="secondary" onClick={onCancel} disabled={busy}>
            {cancelLabel}
          </Button>
          <Button className="button--danger" onClick={onConfirm} busy={busy}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      <p>{children}</p>
      {error && <FormAlert>{error}</FormAlert>}
    </Dialog>
  );
}
