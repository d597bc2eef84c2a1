import type { UpdateProfileRequest, User } from '@voice/protocol';
import { type FormEvent, type ReactNode, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client.ts';
import { type ErrorMessage, errorMessage } from '../../api/errorMessage.ts';
import { profileApi } from '../../api/profile.ts';
import { LanguageField } from '../../i18n/LanguageField.tsx';
import { type AvatarChoice, choiceOf, sameChoice } from '../../lib/avatarChoice.ts';
import { displayNameProblemKey } from '../../lib/displayName.ts';
import { useSession } from '../../session/useSession.ts';
import { ThemeChoice } from '../../theme/ThemeChoice.tsx';
import { AvatarPicker } from '../../ui/AvatarPicker.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { DisplayNameField } from '../../ui/DisplayNameField.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { ProfileDialogFooter } from './ProfileDialogFooter.tsx';
import { SettingsSection } from './SettingsSection.tsx';
import './ProfileDialog.css';

const IMAGE_ERRORS = new Set(['INVALID_IMAGE', 'IMAGE_TOO_LARGE', 'IMAGE_PROCESSING_FAILED']);

/**
 * Profile settings (SPEC section 2): display name and avatar, saved together (the dialog stays
 * open and says "Saved"); language and theme, which apply at once; notifications and sounds. Closing with an unsaved name or avatar asks first.
 */
export function ProfileDialog({
  user,
  notificationSettings,
  onClose,
}: {
  user: User;
  /** The notifications section's controls (the notifications feature's, given by whoever opens this). */
  notificationSettings: ReactNode;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation();
  const { updateUser } = useSession();
  const formId = useId();
  const [savedUser, setSavedUser] = useState(user);
  const [name, setName] = useState(user.display_name ?? '');
  // The avatar as last saved: the choice itself after a save, so a new photo counts as saved.
  const [savedChoice, setSavedChoice] = useState(() => choiceOf(user.avatar_url));
  const [choice, setChoice] = useState<AvatarChoice | null>(savedChoice);
  const [nameErrorKey, setNameErrorKey] = useState<string | null>(null);
  const [avatarError, setAvatarError] = useState<ErrorMessage | null>(null);
  const [failed, setFailed] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [confirmingDiscard, setConfirmingDiscard] = useState(false);
  const focusBeforePrompt = useRef<HTMLElement | null>(null);

  const trimmed = name.trim();
  const nameChanged = trimmed !== (savedUser.display_name ?? '');
  const avatarChanged = !sameChoice(choice, savedChoice) && choice?.kind !== 'current';
  const unsaved = nameChanged || avatarChanged;

  const saveButton = () => document.querySelector<HTMLElement>(`button[form="${formId}"]`);

  /** Saving disables the focused Save button, which drops focus to the page: give it back. */
  function refocusSave() {
    requestAnimationFrame(() => {
      if (document.activeElement === document.body) saveButton()?.focus();
    });
  }

  /** Close, unless there are unsaved edits: then ask first, in the footer. */
  function requestClose() {
    if (!unsaved) {
      onClose();
      return;
    }
    if (confirmingDiscard) return;
    const active = document.activeElement;
    focusBeforePrompt.current = active instanceof HTMLElement ? active : null;
    setConfirmingDiscard(true);
  }

  /** Back to where the user was; when that was a footer button (now replaced), to Save. */
  function keepEditing() {
    setConfirmingDiscard(false);
    const previous = focusBeforePrompt.current;
    requestAnimationFrame(() => (previous?.isConnected ? previous : saveButton())?.focus());
  }

  /** Any edit makes the "Saved" status stale and answers the discard prompt with "keep editing". */
  function edited() {
    setSaved(false);
    setConfirmingDiscard(false);
  }

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFailed(false);
    setSaved(false);
    // Enter in a field saves even while the discard question shows: saving answers it.
    setConfirmingDiscard(false);
    setAvatarError(null);
    const problem = nameChanged ? displayNameProblemKey(trimmed) : null;
    setNameErrorKey(problem);
    if (problem) return;
    if (!unsaved) {
      setSaved(true);
      return;
    }
    setSaving(true);
    let fresh = savedUser;
    try {
      if (avatarChanged && choice?.kind === 'photo') {
        const { avatar_url } = await profileApi.uploadAvatar(choice.file);
        fresh = { ...fresh, avatar_url };
        updateUser(fresh);
        setSavedUser(fresh);
        // Uploaded: a retry after a failed name change does not send the photo again.
        setSavedChoice(choice);
      }
      const body: UpdateProfileRequest = {};
      if (nameChanged) body.display_name = trimmed;
      if (avatarChanged && choice?.kind === 'stock') body.avatar = choice.id;
      if (Object.keys(body).length > 0) fresh = (await profileApi.update(body)).user;
      updateUser(fresh);
      setSavedUser(fresh);
      setName(fresh.display_name ?? '');
      setSavedChoice(choice);
      setSaving(false);
      setSaved(true);
      refocusSave();
    } catch (error) {
      setSaving(false);
      setFailed(true);
      refocusSave();
      if (error instanceof ApiError && IMAGE_ERRORS.has(error.code ?? '')) {
        setAvatarError(errorMessage(error, i18n.language));
      } else if (error instanceof ApiError && error.field === 'display_name') {
        setNameErrorKey('profile.nameRules');
      }
    }
  }

  const displayName = trimmed || user.username;

  return (
    <Dialog
      title={t('profile.title')}
      closeLabel={t('profile.close')}
      onClose={requestClose}
      className="profile-dialog"
      footer={
        <ProfileDialogFooter
          formId={formId}
          saving={saving}
          saved={saved}
          confirmingDiscard={confirmingDiscard}
          onRequestClose={requestClose}
          onDiscard={onClose}
          onKeepEditing={keepEditing}
        />
      }
    >
      <form id={formId} className="profile-dialog__form" onSubmit={save} noValidate>
        {failed && <FormAlert>{t('profile.errors.updateFailed')}</FormAlert>}
        <SettingsSection title={t('profile.sections.profile')}>
          <DisplayNameField
            value={name}
            onChange={(value) => {
              setName(value);
              setNameErrorKey(null);
              edited();
            }}
            errorKey={nameErrorKey}
            hint={t('profile.displayNameHint', { username: user.username })}
            disabled={saving}
          />
          <AvatarPicker
            legend={t('avatars.label')}
            value={choice}
            onChange={(next) => {
              setChoice(next);
              setAvatarError(null);
              edited();
            }}
            name={displayName}
            error={avatarError ? t(avatarError.key, avatarError.values) : null}
            disabled={saving}
          />
        </SettingsSection>
        <SettingsSection title={t('profile.sections.appearance')}>
          <LanguageField />
          <ThemeChoice />
        </SettingsSection>
        <SettingsSection title={t('profile.sections.notifications')}>{notificationSettings}</SettingsSection>
      </form>
    </Dialog>
  );
}
