/**
 * The call interface over whatever page is open: the ringing call (accept, decline), the
 * call being placed (calling…, cancel), the active call (duration, mute, speaker, your
 * level, minimize, leave) or its minimized bar, the card that follows a call (CallEndNotice),
 * and the microphone-permission prompt.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { METER_EVERY_MS } from '../../lib/useLocalVoice.ts';
import { Avatar } from '../../ui/Avatar.tsx';
import { Button } from '../../ui/Button.tsx';
import { DevicePicker } from '../../ui/DevicePicker.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { IconButton } from '../../ui/IconButton.tsx';
import { MaximizeIcon, MicIcon, MicOffIcon, MinimizeIcon, PhoneIcon, PhoneOffIcon } from '../../ui/icons.tsx';
import { CallEndNotice } from './CallEndNotice.tsx';
import { formatDuration } from './callHistoryView.ts';
import type { ActiveCall } from './callState.ts';
import { type CallViewModel, useCall } from './useCall.ts';
import './CallOverlay.css';

export function CallOverlay() {
  const call = useCall();
  const { state } = call;
  return (
    <>
      {state.incoming && !state.active && <IncomingCallCard call={call} />}
      {!state.incoming && (state.placing || ringingThere(state.active)) && <OutgoingCallCard call={call} />}
      {state.active &&
        !ringingThere(state.active) &&
        (call.minimized ? (
          <MinimizedCallBar call={call} active={state.active} />
        ) : (
          <ActiveCallCard call={call} active={state.active} />
        ))}
      <CallEndNotice call={call} />
      {state.outcome === 'microphone-required' && <MicrophonePrompt call={call} />}
    </>
  );
}

/** Our call that rings at the other end: the caller sees "Calling…" until it is answered. */
function ringingThere(active: ActiveCall | null): boolean {
  return active?.isInitiator === true && active.phase === 'connecting';
}

function displayName(call: CallViewModel, t: (key: string) => string): string {
  return call.peer?.display_name || call.peer?.username || t('call.someone');
}

function IncomingCallCard({ call }: { call: CallViewModel }) {
  const { t } = useTranslation();
  const name = displayName(call, t);
  const titleId = useId();
  return (
    <section className="call-card call-card--incoming" role="alertdialog" aria-labelledby={titleId}>
      <Avatar name={name} url={call.peer?.avatar_url ?? null} size={64} />
      <div className="call-card__text">
        <p className="call-card__eyebrow">{t('call.incoming.title')}</p>
        <h2 className="call-card__name" id={titleId}>
          {t('call.incoming.text', { name })}
        </h2>
      </div>
      <div className="call-card__actions">
        <Button variant="secondary" className="button--icon-text button--danger" onClick={call.reject}>
          <PhoneOffIcon /> {t('call.incoming.decline')}
        </Button>
        <Button className="button--icon-text" onClick={call.accept}>
          <PhoneIcon /> {t('call.incoming.accept')}
        </Button>
      </div>
    </section>
  );
}

function OutgoingCallCard({ call }: { call: CallViewModel }) {
  const { t } = useTranslation();
  const name = displayName(call, t);
  return (
    <section className="call-card" aria-label={t('call.region', { name })}>
      <Avatar name={name} url={call.peer?.avatar_url ?? null} size={64} />
      <div className="call-card__text">
        <h2 className="call-card__name">{name}</h2>
        <p className="call-card__status" role="status">
          {t('call.outgoing.calling')}
        </p>
      </div>
      <div className="call-card__actions">
        <Button variant="secondary" className="button--icon-text button--danger" onClick={call.end}>
          <PhoneOffIcon /> {t('call.outgoing.cancel')}
        </Button>
      </div>
    </section>
  );
}

function ActiveCallCard({ call, active }: { call: CallViewModel; active: ActiveCall }) {
  const { t } = useTranslation();
  const name = displayName(call, t);
  return (
    <section className="call-card call-card--active" aria-label={t('call.region', { name })}>
      <header className="call-card__header">
        <IconButton label={t('call.controls.minimize')} onClick={() => call.setMinimized(true)}>
          <MinimizeIcon />
        </IconButton>
      </header>
      <Avatar name={name} url={call.peer?.avatar_url ?? null} size={72} />
      <div className="call-card__text">
        <h2 className="call-card__name">{name}</h2>
        <CallStatus active={active} />
        {call.peerMuted && (
          <p className="call-card__peer-muted" role="status">
            <MicOffIcon width="16" height="16" /> {t('call.peerMuted', { name })}
          </p>
        )}
      </div>
      {call.microphoneWarning && (
        <p className="call-card__warning" role="alert">
          {t(`call.microphoneWarning.${call.microphoneWarning}`)}
        </p>
      )}
      <LevelMeter call={call} />
      <DevicePicker kind="output" />
      <div className="call-card__actions">
        <MuteButton call={call} />
        <Button
          className="button--icon-text button--danger"
          onClick={call.end}
          disabled={active.phase === 'ended'}
        >
          <PhoneOffIcon /> {t('call.controls.leave')}
        </Button>
      </div>
    </section>
  );
}

function MinimizedCallBar({ call, active }: { call: CallViewModel; active: ActiveCall }) {
  const { t } = useTranslation();
  const name = displayName(call, t);
  return (
    <section className="call-bar" aria-label={t('call.region', { name })}>
      <Avatar name={name} url={call.peer?.avatar_url ?? null} size={32} />
      <div className="call-bar__text">
        <span className="call-bar__name">{name}</span>
        <CallStatus active={active} />
      </div>
      <MuteButton call={call} />
      <IconButton label={t('call.controls.expand')} onClick={() => call.setMinimized(false)}>
        <MaximizeIcon />
      </IconButton>
      <IconButton
        label={t('call.controls.leave')}
        className="call-bar__leave"
        onClick={call.end}
        disabled={active.phase === 'ended'}
      >
        <PhoneOffIcon />
      </IconButton>
    </section>
  );
}

function MuteButton({ call }: { call: CallViewModel }) {
  const { t } = useTranslation();
  return (
    <IconButton
      label={t(call.muted ? 'call.controls.unmute' : 'call.controls.mute')}
      aria-pressed={call.muted}
      className={call.muted ? 'icon-button--pressed' : undefined}
      onClick={() => call.setMuted(!call.muted)}
    >
      {call.muted ? <MicOffIcon /> : <MicIcon />}
    </IconButton>
  );
}

/** Connecting…, the duration, or what happened to the connection. */
function CallStatus({ active }: { active: ActiveCall }) {
  const { t } = useTranslation();
  const elapsed = useElapsed(active.connectedAt);
  let text: string;
  if (active.phase === 'ended')
    text = t(active.connection === 'failed' ? 'call.status.failed' : 'call.status.ended');
  else if (active.connection === 'disconnected') text = t('call.status.disconnected');
  else if (active.connection === 'reconnecting') text = t('call.status.reconnecting');
  else if (active.phase === 'connecting' || elapsed === null) text = t('call.status.connecting');
  else text = formatDuration(elapsed);
  return (
    <p className="call-card__status" data-phase={active.phase} data-connection={active.connection}>
      {active.phase === 'connected' && active.connection === 'ok' ? (
        <>
          <span className="visually-hidden">{t('call.status.durationLabel')} </span>
          <time dateTime={`PT${elapsed ?? 0}S`}>{text}</time>
        </>
      ) : (
        <span role="status">{text}</span>
      )}
    </p>
  );
}

/** Seconds since `since`, ticking every second; null before the call connected. */
function useElapsed(since: number | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (since === null) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [since]);
  return since === null ? null : Math.max(0, Math.floor((now - since) / 1000));
}

/**
 * Your own voice's level, updated without React and at most every METER_EVERY_MS: each change
 * redraws the window (without a GPU, a quarter of a core at the ten levels a second).
 */
function LevelMeter({ call }: { call: CallViewModel }) {
  const { t } = useTranslation();
  const meter = useRef<HTMLMeterElement>(null);
  const { onLocalLevel } = call;
  useEffect(() => {
    let latest = 0;
    const timer = window.setInterval(() => {
      if (meter.current && meter.current.value !== latest) meter.current.value = latest;
    }, METER_EVERY_MS);
    const unsubscribe = onLocalLevel((level) => {
      // In steps of 5%, as the voice panel's: a steady voice does not redraw.
      latest = Math.round(level * 20) * 5;
    });
    return () => {
      window.clearInterval(timer);
      unsubscribe();
    };
  }, [onLocalLevel]);
  return (
    <meter ref={meter} className="call-level" aria-label={t('call.level')} min={0} max={100} value={0} />
  );
}

function MicrophonePrompt({ call }: { call: CallViewModel }) {
  const { t } = useTranslation();
  const detail = call.microphoneError?.display;
  return (
    <Dialog
      title={t('call.outcome.microphoneRequired')}
      onClose={call.dismissOutcome}
      closeLabel={t('call.dismiss')}
      footer={<Button onClick={call.dismissOutcome}>{t('call.microphone.ok')}</Button>}
    >
      <div className="call-mic-prompt">
        <MicOffIcon width="32" height="32" />
        <p>{detail ? t(detail.key, detail.values) : t('call.microphone.text')}</p>
      </div>
    </Dialog>
  );
}
