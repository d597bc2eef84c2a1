/**
 * The voice panel: on every page, at every width, while you are in a call or a room (Discord's
 * panel at the bottom left): where you are (a link back to the room's screen), how good the
 * connection is (good, fair, poor; the figures on hover), mute (also the M key), deafen in a
 * room, and disconnect; in a stage's audience, a raised hand in place of mute. Muted by a room's admin or moderator, you read who did it, and the
 * mute button cannot unmute you. A chosen microphone or speaker that is gone (the default is
 * used instead) and a room's microphone trouble are said here too. Fixed to the bottom of the window, so mute and leave are never below
 * the fold; the page keeps room for it (--voice-panel-space).
 */
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useCall } from '../../features/calls/useCall.ts';
import { useRoom } from '../../features/rooms/useRoom.ts';
import type { ConnectionQuality } from '../../lib/connectionQuality.ts';
import { nameOf } from '../../lib/people.ts';
import { type LevelSubscription, useLocalSpeaking, useLocalVoice } from '../../lib/useLocalVoice.ts';
import { audioDeviceChoices, dismissFallback, subscribeAudioDevices } from '../../media/audioDevices.ts';
import { keyLabel, subscribeVoiceSettings, voiceSettings } from '../../media/voiceSettings.ts';
import { roomPath } from '../../session/paths.ts';
import { IconButton } from '../../ui/IconButton.tsx';
import { HandIcon, MicIcon, MicOffIcon, PhoneOffIcon, SettingsIcon, SpeakerIcon } from '../../ui/icons.tsx';
import { useConnectionQuality } from './useConnectionQuality.ts';
import { useFollowRoom } from './useFollowRoom.ts';
import { useMuteKey } from './useMuteKey.ts';
import { forgetRoomForReload, useRejoinAfterReload } from './useRejoinAfterReload.ts';
import { useVoiceGate } from './useVoiceGate.ts';
import { VoiceSettingsDialog } from './VoiceSettingsDialog.tsx';
import './VoicePanel.css';

/** The height the panel takes at the bottom of the window, kept free by the page. */
const PANEL_SPACE = '76px';

export function VoicePanel() {
  const { t } = useTranslation();
  const call = useCall();
  const room = useRoom();
  useFollowRoom();

  const active = call.state.active;
  const inCall = active !== null && active.phase !== 'ended';
  const inRoom = !inCall && room.state.status !== 'idle' && room.state.room !== null;
  const muted = inCall ? call.muted : room.state.muted;
  // Muted by the room's admin or a moderator: only they can lift it.
  const mutedBy = inRoom ? room.state.mutedBy : null;
  const setMuted = inCall ? call.setMuted : room.setMuted;
  const shown = inCall || inRoom;
  const onLocalLevel = inCall ? call.onLocalLevel : inRoom ? room.onLocalLevel : null;
  const speaking = useLocalSpeaking(onLocalLevel);
  const settings = useSyncExternalStore(subscribeVoiceSettings, voiceSettings);
  const fellBack = useSyncExternalStore(subscribeAudioDevices, () => audioDeviceChoices().fellBack);
  useRejoinAfterReload(inRoom && room.state.status === 'connected' ? (room.state.room?.id ?? null) : null);
  // Removed from the room, or the room closed: a reload does not try it again.
  const ended = room.state.ended;
  useEffect(() => {
    if (ended === 'kicked' || ended === 'closed') forgetRoomForReload();
  }, [ended]);
  const sessionKey = inCall ? `call:${active.callId}` : inRoom ? `room:${room.state.room?.id}` : null;
  const [settingsOpen, setSettingsOpen] = useState(false);
  const sending = useVoiceGate(inCall ? call : inRoom ? room : null, sessionKey);

  // In a stage's audience there is nothing to mute: the hand asks to speak.
  const audience = inRoom && room.state.room?.stage === true && !room.state.stageRole.speaker;
  const toggleMute = useCallback(() => setMuted(!muted), [setMuted, muted]);
  useMuteKey(shown && !audience ? toggleMute : null);
  const quality = useConnectionQuality(
    inCall ? call.connectionStats : inRoom ? room.connectionStats : null,
    inCall ? `call:${active.callId}` : inRoom ? `room:${room.state.room?.id}:${room.state.status}` : null,
  );

  useEffect(() => {
    if (!shown) return;
    document.documentElement.style.setProperty('--voice-panel-space', PANEL_SPACE);
    return () => {
      document.documentElement.style.removeProperty('--voice-panel-space');
    };
  }, [shown]);

  if (!shown) return null;
  const roomState = room.state;
  const status = inCall
    ? active.phase === 'connected' && active.connection === 'ok'
      ? 'connected'
      : 'connecting'
    : roomState.status === 'connected'
      ? 'connected'
      : 'connecting';
  const peerName = call.peer ? nameOf(call.peer) : '';

  return (
    <section className="voice-panel" aria-label={t('voicePanel.label')} data-status={status}>
      <div className="voice-panel__where">
        <QualityBadge quality={status === 'connected' ? quality : null} />
        <div className="voice-panel__text">
          <span className="voice-panel__status">
            {t(status === 'connected' ? 'voicePanel.connected' : 'voicePanel.connecting')}
          </span>
          {inCall ? (
            <span className="voice-panel__place">{t('voicePanel.call', { name: peerName })}</span>
          ) : (
            <Link className="voice-panel__place" to={roomPath(roomState.room?.id ?? '')}>
              {roomState.room?.name}
            </Link>
          )}
        </div>
      </div>
      {!muted && settings.inputMode === 'push-to-talk' && (
        <p className="voice-panel__ptt" data-sending={sending}>
          {t('voicePanel.pushToTalk', { key: keyLabel(settings.pushToTalkKey) })}
        </p>
      )}
      {mutedBy ? (
        <p className="voice-panel__muted-hint" role="status" id="voice-panel-muted-by">
          {t('voicePanel.mutedYou', { name: mutedBy.displayName })}
        </p>
      ) : (
        muted &&
        speaking && (
          <p className="voice-panel__muted-hint" role="status">
            {t('voicePanel.youAreMuted')}
          </p>
        )
      )}
      <div className="voice-panel__notices">
        {inRoom && roomState.microphoneWarning && (
          <p className="voice-panel__notice voice-panel__notice--danger" role="alert">
            {t(`voicePanel.microphoneWarning.${roomState.microphoneWarning}`)}
          </p>
        )}
        {fellBack.map((kind) => (
          <p key={kind} className="voice-panel__notice" role="status">
            {t(`voicePanel.deviceFallback.${kind}`)}
            <button type="button" className="voice-panel__notice-close" onClick={dismissFallback}>
              {t('call.dismiss')}
            </button>
          </p>
        ))}
      </div>
      <div className="voice-panel__controls">
        <InputMeter onLocalLevel={onLocalLevel} />
        {audience ? (
          <IconButton
            label={t(room.state.stageRole.handRaised ? 'rooms.stage.lowerHand' : 'rooms.stage.raiseHand')}
            aria-pressed={room.state.stageRole.handRaised}
            className={room.state.stageRole.handRaised ? 'icon-button--pressed' : undefined}
            onClick={() =>
              void room
                .raiseHand(!room.state.stageRole.handRaised)
                .catch((error: unknown) => console.warn('Raising your hand failed', error))
            }
          >
            <HandIcon />
          </IconButton>
        ) : (
          <IconButton
            label={t(muted ? 'call.controls.unmute' : 'call.controls.mute')}
            aria-pressed={muted}
            aria-keyshortcuts="M"
            className={muted ? 'icon-button--pressed' : undefined}
            disabled={mutedBy !== null}
            aria-describedby={mutedBy ? 'voice-panel-muted-by' : undefined}
            onClick={toggleMute}
          >
            {muted ? <MicOffIcon /> : <MicIcon />}
          </IconButton>
        )}
        {inRoom && (
          <IconButton
            label={t(roomState.deafened ? 'rooms.view.undeafen' : 'rooms.view.deafen')}
            aria-pressed={roomState.deafened}
            className={roomState.deafened ? 'icon-button--pressed' : undefined}
            onClick={() => room.setDeafened(!roomState.deafened)}
          >
            <SpeakerIcon />
          </IconButton>
        )}
        <IconButton
          label={t('voiceSettings.title')}
          aria-haspopup="dialog"
          onClick={() => setSettingsOpen(true)}
        >
          <SettingsIcon />
        </IconButton>
        <IconButton
          label={t(inCall ? 'voicePanel.hangUp' : 'rooms.view.leave')}
          className="icon-button--danger"
          onClick={() => {
            if (inCall) return call.end();
            forgetRoomForReload();
            void room.leave();
          }}
        >
          <PhoneOffIcon />
        </IconButton>
      </div>
      {settingsOpen && (
        <SettingsWithLevel onLocalLevel={onLocalLevel} onClose={() => setSettingsOpen(false)} />
      )}
    </section>
  );
}

/**
 * Your input level: redrawn alone (not the whole panel) and at most four times a second (see
 * useLocalVoice: without a GPU each redraw is a frame of the whole window).
 */
function InputMeter({ onLocalLevel }: { onLocalLevel: LevelSubscription }) {
  const { t } = useTranslation();
  const voice = useLocalVoice(onLocalLevel);
  return (
    <meter
      className="voice-panel__meter"
      aria-label={t('voicePanel.inputLevel')}
      min={0}
      max={1}
      value={voice.level}
      data-speaking={voice.speaking}
    />
  );
}

/** The voice settings with your live level (their sensitivity is set against it). */
function SettingsWithLevel({ onLocalLevel, onClose }: { onLocalLevel: LevelSubscription; onClose(): void }) {
  const voice = useLocalVoice(onLocalLevel);
  return <VoiceSettingsDialog level={voice.level} onClose={onClose} />;
}

/** Three bars: all lit when good, two when fair, one when poor; the figures on hover. */
function QualityBadge({ quality }: { quality: ConnectionQuality | null }) {
  const { t } = useTranslation();
  const level = quality?.quality ?? 'unknown';
  const details = quality
    ? t('voicePanel.quality.details', {
        rtt: quality.rttMs === null ? '–' : Math.round(quality.rttMs),
        loss: quality.lossPercent === null ? '–' : quality.lossPercent.toFixed(1),
      })
    : t('voicePanel.quality.measuring');
  const label = `${t(`voicePanel.quality.${level}`)}: ${details}`;
  return (
    <span className="voice-panel__quality" data-quality={level} role="img" aria-label={label} title={label}>
      <span />
      <span />
      <span />
    </span>
  );
}
