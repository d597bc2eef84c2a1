/**
 * A microphone or speaker picker: "Default" first, then the devices the browser lists (kept
 * up to date as they come and go). The choice is kept in this browser and applied at once to
 * the room or call you are in (audioDevices.ts). Used by the voice settings and the call card.
 * Shows nothing where the browser cannot list the devices, or cannot switch speakers.
 */
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { useAudioDevices } from '../lib/useAudioDevices.ts';
import { type AudioDeviceKind, chooseDevice } from '../media/audioDevices.ts';
import { MicIcon, SpeakerIcon } from './icons.tsx';
import './DevicePicker.css';

export function DevicePicker({ kind }: { kind: AudioDeviceKind }) {
  const { t } = useTranslation();
  const id = useId();
  const { devices, chosen } = useAudioDevices(kind);
  if (devices === null) return null;
  // A chosen device that is gone: the default plays, and the picker says so.
  const shown = devices.some((device) => device.deviceId === chosen) ? chosen : '';
  return (
    <div className="device-picker" data-kind={kind}>
      <label htmlFor={id}>
        {kind === 'input' ? <MicIcon width="16" height="16" /> : <SpeakerIcon width="16" height="16" />}{' '}
        {t(kind === 'input' ? 'voiceSettings.devices.microphone' : 'call.controls.speaker')}
      </label>
      <select id={id} value={shown} onChange={(event) => chooseDevice(kind, event.target.value)}>
        <option value="">{t('call.controls.defaultOutput')}</option>
        {devices.map((device) => (
          <option key={device.deviceId} value={device.deviceId}>
            {device.label}
          </option>
        ))}
      </select>
    </div>
  );
}
