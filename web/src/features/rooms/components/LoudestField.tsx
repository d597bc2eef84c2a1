/** How many voices each member hears at once, for the create-room form and the room settings. */
import { FORWARDING } from '@voice/protocol';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';

/** The numbers a room's `loudest` may be, as the API takes them (FORWARDING's bounds). */
export function loudestChoices(): number[] {
  const { loudestMin, loudestMax } = FORWARDING;
  return Array.from({ length: loudestMax - loudestMin + 1 }, (_, index) => loudestMin + index);
}

export function LoudestField({ value, onChange }: { value: number; onChange(loudest: number): void }) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {t('rooms.settings.loudest')}
      </label>
      <div className="field__control">
        <select
          id={id}
          name="room-loudest"
          className="field__input select-chevron rooms-form__loudest"
          value={value}
          aria-describedby={`${id}-hint`}
          onChange={(event) => onChange(Number(event.target.value))}
        >
          {loudestChoices().map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      </div>
      <p className="field__hint" id={`${id}-hint`}>
        {t('rooms.settings.loudestHint')}
      </p>
    </div>
  );
}
