/**
 * Voice settings, from the voice panel: the microphone and speaker (kept in this browser, see
 * DevicePicker) with a microphone test, voice activity or push-to-talk (with its key, set by
 * pressing it), the sensitivity of voice activity against your live level, and the switches of
 * the microphone's processing. Each change applies at once (voiceSettings.ts); closing the
 * dialog saves them to the profile, so they follow you to another browser.
 */
import { VOICE_LIMITS } from '@voice/protocol';
import { useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { profileApi } from '../../api/profile.ts';
import { levelToDb } from '../../media/voiceGate.ts';
import {
  keyLabel,
  setVoiceSettings,
  subscribeVoiceSettings,
  voiceSettings,
} from '../../media/voiceSettings.ts';
import { useSession } from '../../session/useSession.ts';
import { Button } from '../../ui/Button.tsx';
import { Checkbox } from '../../ui/Checkbox.tsx';
import { DevicePicker } from '../../ui/DevicePicker.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { MicrophoneTest } from './MicrophoneTest.tsx';
import './VoiceSettingsDialog.css';

/** A starting sensitivity when it is first set by hand: between room noise and speech. */
const FIRST_SENSITIVITY_DB = -50;

export function VoiceSettingsDialog({ level, onClose }: { level: number; onClose(): void }) {
  const { t } = useTranslation();
  const settings = useSyncExternalStore(subscribeVoiceSettings, voiceSettings);
  const [binding, setBinding] = useState(false);
  const id = useId();
  const { status, updateUser } = useSession();
  const opened = useRef(JSON.stringify(settings));

  const close = () => {
    onClose();
    const chosen = voiceSettings();
    if (status !== 'authenticated' || JSON.stringify(chosen) === opened.current) return;
    profileApi.update({ voice_settings: chosen }).then(
      ({ user }) => updateUser(user),
      // Kept in this browser all the same; the profile gets them at the next change.
      (error: unknown) => console.warn('Voice settings could not be saved to the profile', error),
    );
  };

  // Rebinding: the next key pressed (Escape cancels) becomes the push-to-talk key.
  useEffect(() => {
    if (!binding) return;
    const onKey = (event: KeyboardEvent) => {
      event.preventDefault();
      event.stopPropagation();
      if (event.code !== 'Escape' && /^[A-Za-z0-9]+$/.test(event.code))
        setVoiceSettings({ pushToTalkKey: event.code });
      setBinding(false);
    };
    window.addEventListener('keydown', onKey, { capture: true });
    return () => window.removeEventListener('keydown', onKey, { capture: true });
  }, [binding]);

  const levelDb = Math.round(levelToDb(level));
  return (
    <Dialog
      title={t('voiceSettings.title')}
      onClose={close}
      closeLabel={t('call.dismiss')}
      className="voice-settings"
      footer={<Button onClick={close}>{t('voiceSettings.done')}</Button>}
    >
      <fieldset className="voice-settings__group">
        <legend>{t('voiceSettings.devices.title')}</legend>
        <DevicePicker kind="input" />
        <DevicePicker kind="output" />
        <MicrophoneTest />
      </fieldset>

      <fieldset className="voice-settings__group">
        <legend>{t('voiceSettings.inputMode')}</legend>
        {(['voice', 'push-to-talk'] as const).map((mode) => (
          <label key={mode} className="voice-settings__choice">
            <input
              type="radio"
              name={`${id}-mode`}
              checked={settings.inputMode === mode}
              onChange={() => setVoiceSettings({ inputMode: mode })}
            />
            {t(`voiceSettings.modes.${mode}`)}
          </label>
        ))}
      </fieldset>

      {settings.inputMode === 'push-to-talk' ? (
        <div className="voice-settings__row">
          <span id={`${id}-key`}>{t('voiceSettings.key')}</span>
          <Button variant="secondary" aria-describedby={`${id}-key`} onClick={() => setBinding(true)}>
            {binding ? t('voiceSettings.pressKey') : keyLabel(settings.pushToTalkKey)}
          </Button>
        </div>
      ) : (
        <div className="voice-settings__group">
          <Checkbox
            name="auto-sensitivity"
            checked={settings.sensitivityDb === null}
            onChange={(event) =>
              setVoiceSettings({ sensitivityDb: event.target.checked ? null : FIRST_SENSITIVITY_DB })
            }
          >
            {t('voiceSettings.sendAlways')}
          </Checkbox>
          {settings.sensitivityDb !== null && (
            <label className="voice-settings__sensitivity">
              <span>{t('voiceSettings.sensitivity', { db: settings.sensitivityDb })}</span>
              <input
                type="range"
                min={VOICE_LIMITS.sensitivityMinDb}
                max={VOICE_LIMITS.sensitivityMaxDb}
                step={1}
                value={settings.sensitivityDb}
                aria-valuetext={`${settings.sensitivityDb} dB`}
                onChange={(event) => setVoiceSettings({ sensitivityDb: Number(event.target.value) })}
              />
              <span className="voice-settings__level" data-over={levelDb >= settings.sensitivityDb}>
                {t('voiceSettings.yourLevel', { db: levelDb })}
              </span>
            </label>
          )}
        </div>
      )}

      <div className="voice-settings__group">
        <Checkbox
          name="noise-suppression"
          checked={settings.noiseSuppression}
          onChange={(event) => setVoiceSettings({ noiseSuppression: event.target.checked })}
        >
          {t('voiceSettings.noiseSuppression')}
        </Checkbox>
        <Checkbox
          name="echo-cancellation"
          checked={settings.echoCancellation}
          onChange={(event) => setVoiceSettings({ echoCancellation: event.target.checked })}
        >
          {t('voiceSettings.echoCancellation')}
        </Checkbox>
        <Checkbox
          name="auto-gain"
          checked={settings.autoGainControl}
          onChange={(event) => setVoiceSettings({ autoGainControl: event.target.checked })}
        >
          {t('voiceSettings.autoGainControl')}
        </Checkbox>
      </div>
    </Dialog>
  );
}
