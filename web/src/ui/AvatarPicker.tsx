import { AVATAR_UPLOAD, STOCK_AVATARS, stockAvatarUrl } from '@voice/protocol';
import { type ChangeEvent, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  type AvatarChoice,
  choiceUrl,
  IMAGE_PROBLEM_KEYS,
  imageProblem,
  MAX_IMAGE_MB,
} from '../lib/avatarChoice.ts';
import { useObjectUrl } from '../lib/useObjectUrl.ts';
import { AvatarTile } from './AvatarTile.tsx';
import { Button } from './Button.tsx';
import { UploadIcon } from './icons.tsx';
import './AvatarPicker.css';

interface Props {
  /** The group's visible label. */
  legend: string;
  value: AvatarChoice | null;
  onChange: (choice: AvatarChoice | null) => void;
  /** Shown on the preview while no image is chosen: the initial of this name. */
  name: string;
  /** A message about the choice from outside, e.g. "Please select an avatar" or an upload error. */
  error?: string | null;
  disabled?: boolean;
}

/** Avatar choice (SPEC section 2): one of the stock avatars, or a photo with a preview. */
export function AvatarPicker({ legend, value, onChange, name, error, disabled = false }: Props) {
  const { t } = useTranslation();
  const id = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [fileErrorKey, setFileErrorKey] = useState<string | null>(null);
  // The own photo stays on offer after a stock avatar was tried, so the user can go back to it.
  const [ownPhoto, setOwnPhoto] = useState<AvatarChoice | null>(() =>
    value?.kind === 'photo' || value?.kind === 'current' ? value : null,
  );
  const photoUrl = useObjectUrl(ownPhoto?.kind === 'photo' ? ownPhoto.file : null);
  const previewUrl = choiceUrl(value, photoUrl);
  const ownPhotoUrl = choiceUrl(ownPhoto, photoUrl);
  const message = fileErrorKey ? t(fileErrorKey, { size: MAX_IMAGE_MB }) : error;

  const pick = (choice: AvatarChoice | null) => {
    setFileErrorKey(null);
    onChange(choice);
  };

  const onFile = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // Cleared so choosing the same file again still fires a change.
    event.target.value = '';
    if (!file) return;
    const problem = imageProblem(file);
    if (problem) {
      setFileErrorKey(IMAGE_PROBLEM_KEYS[problem]);
      return;
    }
    const photo: AvatarChoice = { kind: 'photo', file };
    setOwnPhoto(photo);
    pick(photo);
  };

  // A photo the browser cannot draw will not be accepted by the server either.
  const onPhotoError = () => {
    if (ownPhoto?.kind !== 'photo') return;
    setOwnPhoto(null);
    if (value?.kind === 'photo') onChange(null);
    setFileErrorKey('avatars.errors.loadFailed');
  };

  return (
    <fieldset className="avatar-picker" disabled={disabled} aria-describedby={`${id}-hint`}>
      <legend className="avatar-picker__legend">{legend}</legend>
      <div className="avatar-picker__top">
        <div className="avatar-picker__preview" data-testid="avatar-preview">
          {previewUrl ? (
            <img src={previewUrl} alt={t('avatars.preview')} />
          ) : (
            <span aria-hidden="true">{Array.from(name.trim())[0]?.toUpperCase() ?? '?'}</span>
          )}
        </div>
        <div className="avatar-picker__upload">
          <Button variant="secondary" onClick={() => fileInput.current?.click()}>
            <UploadIcon />
            {t('avatars.upload')}
          </Button>
          <p className="avatar-picker__hint" id={`${id}-hint`}>
            {t('avatars.uploadHint', { size: MAX_IMAGE_MB })}
          </p>
          <input
            ref={fileInput}
            type="file"
            accept={AVATAR_UPLOAD.accept}
            onChange={onFile}
            hidden
            data-testid="avatar-file"
          />
        </div>
      </div>
      {message && (
        <p className="field__error avatar-picker__error" role="alert">
          {message}
        </p>
      )}
      <p className="avatar-picker__or">{t('avatars.orPick')}</p>
      <div className="avatar-picker__grid">
        {ownPhoto && (
          <AvatarTile
            group={`${id}-avatar`}
            value="photo"
            label={t('avatars.yourPhoto')}
            src={ownPhotoUrl}
            checked={value === ownPhoto}
            onSelect={() => pick(ownPhoto)}
            onImageError={onPhotoError}
          />
        )}
        {STOCK_AVATARS.map((avatar) => (
          <AvatarTile
            key={avatar.id}
            group={`${id}-avatar`}
            value={avatar.id}
            label={t(`avatars.${avatar.id}`)}
            src={stockAvatarUrl(avatar.id)}
            checked={value?.kind === 'stock' && value.id === avatar.id}
            onSelect={() => pick({ kind: 'stock', id: avatar.id })}
            loading="lazy"
          />
        ))}
      </div>
    </fieldset>
  );
}
