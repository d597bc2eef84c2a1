/**
 * Runs the transmit gate (VoiceGate) for the call or room you are in: push-to-talk from the
 * key in your voice settings, held anywhere on the page but in a text field (released when
 * the window loses focus, as a key let go elsewhere never reports), or voice activity from
 * your microphone's level. Says whether the microphone is sent now.
 */
import { useEffect, useRef, useState } from 'react';
import { VoiceGate } from '../../media/voiceGate.ts';
import { subscribeVoiceSettings, voiceSettings } from '../../media/voiceSettings.ts';

export interface GateTarget {
  setTransmitting(open: boolean): void;
  onLocalLevel(listener: (level: number) => void): () => void;
}

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  target.closest('input, textarea, select, [contenteditable="true"]') !== null;

/** `key` names the call or room; a new one starts a new gate. */
export function useVoiceGate(target: GateTarget | null, key: string | null): boolean {
  const latest = useRef(target);
  latest.current = target;
  const [open, setOpen] = useState(true);

  useEffect(() => {
    if (!key) return;
    const apply = (next: boolean) => {
      latest.current?.setTransmitting(next);
      setOpen(next);
    };
    const gate = new VoiceGate(voiceSettings(), apply);
    apply(gate.open);
    const offSettings = subscribeVoiceSettings(() => {
      gate.configure(voiceSettings());
      apply(gate.open);
    });
    const offLevel = latest.current?.onLocalLevel((level) => gate.level(level)) ?? (() => {});
    const down = (event: KeyboardEvent) => {
      if (event.code !== voiceSettings().pushToTalkKey || event.repeat || typing(event.target)) return;
      if (voiceSettings().inputMode !== 'push-to-talk') return;
      event.preventDefault();
      gate.keyDown();
    };
    const up = (event: KeyboardEvent) => {
      if (event.code === voiceSettings().pushToTalkKey) gate.keyUp();
    };
    const release = () => gate.keyUp();
    window.addEventListener('keydown', down);
    window.addEventListener('keyup', up);
    window.addEventListener('blur', release);
    return () => {
      window.removeEventListener('keydown', down);
      window.removeEventListener('keyup', up);
      window.removeEventListener('blur', release);
      offSettings();
      offLevel();
      gate.dispose();
      latest.current?.setTransmitting(true);
      setOpen(true);
    };
  }, [key]);
  return open;
}
