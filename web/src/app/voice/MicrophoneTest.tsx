/**
 * "Test microphone" in the voice settings: plays your own voice back to you, quietly (the
 * spec's monitoring gain), with its level, and warns of feedback while it runs. Another
 * microphone or speaker chosen meanwhile restarts it on those. Stops with its button, or when
 * the dialog closes.
 */
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import type { ErrorMessage } from '../../api/errorMessage.ts';
import { audioDeviceChoices, subscribeAudioDevices } from '../../media/audioDevices.ts';
import { MicrophoneError } from '../../media/microphoneErrors.ts';
import { MicrophoneTest as Monitor } from '../../media/microphoneTest.ts';
import { Button } from '../../ui/Button.tsx';

type TestState = { phase: 'idle' | 'starting' | 'running' } | { phase: 'failed'; message: ErrorMessage };

export function MicrophoneTest() {
  const { t } = useTranslation();
  const [state, setState] = useState<TestState>({ phase: 'idle' });
  const [level, setLevel] = useState(0);
  const monitor = useRef<Monitor | null>(null);
  /** Bumped by every start and stop: a start that finishes after a stop is let go. */
  const attempt = useRef(0);

  const stop = () => {
    attempt.current++;
    monitor.current?.stop();
    monitor.current = null;
    setLevel(0);
  };

  const start = () => {
    const mine = ++attempt.current;
    setState({ phase: 'starting' });
    Monitor.start((value) => setLevel(value)).then(
      (started) => {
        if (mine !== attempt.current) return started.stop();
        monitor.current = started;
        setState({ phase: 'running' });
      },
      (error: unknown) => {
        if (mine !== attempt.current) return;
        console.warn('The microphone test could not start', error);
        setState({
          phase: 'failed',
          message: error instanceof MicrophoneError ? error.display : { key: 'voiceSettings.test.failed' },
        });
      },
    );
  };

  // Another device chosen while it runs: the test moves to it.
  const { input, output } = useSyncExternalStore(subscribeAudioDevices, audioDeviceChoices);
  const devicesSeen = useRef({ input, output });
  useEffect(() => {
    const seen = devicesSeen.current;
    if (seen.input === input && seen.output === output) return;
    devicesSeen.current = { input, output };
    if (!monitor.current) return;
    stop();
    start();
  });

  // Closing the dialog ends the test.
  useEffect(
    () => () => {
      attempt.current++;
      monitor.current?.stop();
      monitor.current = null;
    },
    [],
  );

  const running = state.phase === 'running';
  return (
    <div className="voice-settings__test">
      <div className="voice-settings__row">
        <Button
          variant="secondary"
          disabled={state.phase === 'starting'}
          onClick={() => {
            if (running) {
              stop();
              setState({ phase: 'idle' });
            } else start();
          }}
        >
          {t(running ? 'voiceSettings.test.stop' : 'voiceSettings.test.start')}
        </Button>
        <meter
          className="voice-settings__test-meter"
          aria-label={t('voiceSettings.test.level')}
          min={0}
          max={1}
          value={level}
        />
      </div>
      {running && (
        <p className="voice-settings__warning" role="alert">
          {t('voiceSettings.test.feedbackWarning')}
        </p>
      )}
      {state.phase === 'failed' && (
        <p className="voice-settings__error" role="alert">
          {t(state.message.key, state.message.values)}
        </p>
      )}
    </div>
  );
}
