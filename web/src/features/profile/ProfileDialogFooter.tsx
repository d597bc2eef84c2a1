import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../ui/Button.tsx';
import { CheckIcon } from '../../ui/icons.tsx';

interface Props {
  /** The form the Save button submits. */
  formId: string;
  saving: boolean;
  /** Shows "Saved" until the next edit. */
  saved: boolean;
  /** Asks "discard your changes?" instead of offering Close and Save. */
  confirmingDiscard: boolean;
  /** Close, or ask first when there are unsaved edits. */
  onRequestClose(): void;
  /** Close, dropping the unsaved edits. */
  onDiscard(): void;
  onKeepEditing(): void;
}

/** The profile dialog's buttons: Close and Save with the save status, or the discard question. */
export function ProfileDialogFooter({
  formId,
  saving,
  saved,
  confirmingDiscard,
  onRequestClose,
  onDiscard,
  onKeepEditing,
}: Props) {
  const { t } = useTranslation();
  // Keyed, so the prompt's buttons are new elements (autoFocus applies) and not the old ones relabelled.
  return confirmingDiscard ? (
    <Fragment key="discard">
      <p className="profile-dialog__prompt" role="alert">
        {t('profile.discard.question')}
      </p>
      <Button variant="secondary" onClick={onDiscard}>
        {t('profile.discard.confirm')}
      </Button>
      {/* The prompt replaces the button that asked to close: focus goes to the safe answer. */}
      <Button autoFocus onClick={onKeepEditing}>
        {t('profile.discard.keep')}
      </Button>
    </Fragment>
  ) : (
    <Fragment key="actions">
      <p className="profile-dialog__status" role="status">
        {saved && (
          <>
            <CheckIcon />
            {t('profile.saved')}
          </>
        )}
      </p>
      <Button variant="secondary" onClick={onRequestClose}>
        {t('profile.close')}
      </Button>
      <Button type="submit" form={formId} busy={saving}>
        {saving ? t('profile.saving') : t('profile.save')}
      </Button>
    </Fragment>
  );
}
