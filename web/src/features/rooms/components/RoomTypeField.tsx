/** Public or private, for the create-room form and the room settings. */
import type { RoomType } from '@voice/protocol';
import { useTranslation } from 'react-i18next';

export function RoomTypeField({ value, onChange }: { value: RoomType; onChange(type: RoomType): void }) {
  const { t } = useTranslation();
  return (
    <fieldset className="rooms-form__type">
      <legend>{t('rooms.create.type')}</legend>
      {(['public', 'private'] as const).map((option) => (
        <label key={option}>
          <input
            type="radio"
            name="room-type"
            value={option}
            checked={value === option}
            onChange={() => onChange(option)}
          />
          <span>
            <strong>{t(`rooms.type.${option}`)}</strong> {t(`rooms.typeHint.${option}`)}
          </span>
        </label>
      ))}
    </fieldset>
  );
}
