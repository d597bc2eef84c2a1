import type { UpdateProfileRequest, User } from '@voice/protocol';
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client.ts';
import { errorMessageKey } from '../../api/errorMessage.ts';
import { profileApi } from '../../api/profile.ts';
import { LanguageField } from '../../i18n/LanguageField.tsx';
import { useSession } from '../../session/useSession.ts';
import { ThemeChoice } from '../../theme/ThemeChoice.tsx';
import { Button } from '../../ui/Button.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { BellIcon } from '../../ui/icons.tsx';
import { AvatarPicker } from './AvatarPicker.tsx';
import { type AvatarChoice, choiceOf, sameChoice } from './avatarChoice.ts';
import { DisplayNameField } from './DisplayNameField.tsx';
import { displayNameProblemKey } from './displayName.ts';
import './ProfileDialog.css';

const IMAGE_ERRORS = new Set(['INVALID_IMAGE', 'IMAGE_TOO_LARGE', 'IMAGE_PROCESSING_FAILED']);

/**
 * Profile settings (SPEC section 2): display name and avatar, saved together; language and
 * theme, which apply at once; notifications, coming with push.
 */
export function ProfileDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const { t } = useTranslation();
  const { updateUser } = useSession();
  const formId = useId();
  const [savedUser, setSavedUser] = useState(user);
  const [name, setName] = useState(user.display_name ?? '');
  const [initialChoice] = useState(() => choiceOf(user.avatar_url));
  const [choice, setChoice] = useState<AvatarChoice | null>(initialChoice);
  const [nameErrorKey, setNameErrorKey] = useState<string | null>(null);
  const [avatarErrorKey, setAvatarErrorKey] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const [saving, setSaving] = useState(false);

  const trimmed = name.trim();
  const nameChanged = trimmed !== (savedUser.display_name ?? '');
  const avatarChanged = !sameChoice(choice, initialChoice) && choice?.kind !== 'current';

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFailed(false);
    setAvatarErrorKey(null);
    const problem = nameChanged ? displayNameProblemKey(trimmed) : null;
    setNameErrorKey(problem);
    if (problem) return;
    if (!nameChanged && !avatarChanged) {
      onClose();
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
      }
      const body: UpdateProfileRequest = {};
      if (nameChanged) body.display_name = trimmed;
      if (avatarChanged && choice?.kind === 'stock') body.avatar = choice.id;
      if (Object.keys(body).length > 0) fresh = (await profileApi.update(body)).user;
      updateUser(fresh);
      onClose();
    } catch (error) {
      setSaving(false);
      setFailed(true);
      if (error instanceof ApiError && IMAGE_ERRORS.has(error.code ?? '')) {
        setAvatarErrorKey(errorMessageKey(error));
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
      onClose={onClose}
      className="profile-dialog"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {t('profile.close')}
          </Button>
          <Button type="submit" form={formId} busy={saving}>
            {saving ? t('profile.saving') : t('profile.save')}
          </Button>
        </>
      }
    >
      <form id={formId} className="profile-dialog__form" onSubmit={save} noValidate>
        {failed && <FormAlert>{t('profile.errors.updateFailed')}</FormAlert>}
        <section className="profile-dialog__section" aria-labelledby={`${formId}-profile`}>
          <h3 className="profile-dialog__heading" id={`${formId}-profile`}>
            {t('profile.sections.profile')}
          </h3>
          <DisplayNameField
            value={name}
            onChange={(value) => {
              setName(value);
              setNameErrorKey(null);
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
              setAvatarErrorKey(null);
            }}
            name={displayName}
            error={avatarErrorKey ? t(avatarErrorKey) : null}
            disabled={saving}
          />
        </section>
        <section className="profile-dialog__section" aria-labelledby={`${formId}-appearance`}>
          <h3 className="profile-dialog__heading" id={`${formId}-appearance`}>
            {t('profile.sections.appearance')}
          </h3>
          <LanguageField />
          <ThemeChoice />
        </section>
        <section className="profile-dialog__section" aria-labelledby={`${formId}-notifications`}>
          <h3 className="profile-dialog__heading" id={`${formId}-notifications`}>
            {t('profile.sections.notifications')}
          </h3>
          <div className="profile-dialog__soon">
            <BellIcon />
            <p>{t('profile.notificationsSoon')}</p>
          </div>
        </section>
      </form>
    </Dialog>
  );
}
