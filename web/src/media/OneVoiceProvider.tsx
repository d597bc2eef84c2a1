/**
 * One OneVoice for the signed-in tabs' room and call (SignedInProviders), and the question it
 * puts: "Leave Walk Lounge and answer Bob?", with the way out ("Cancel") as the safe choice.
 */
import { createContext, type ReactNode, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { type HeldVoice, OneVoice, type VoiceQuestion } from './OneVoice.ts';

const OneVoiceContext = createContext<OneVoice | null>(null);

export function OneVoiceProvider({ children }: { children: ReactNode }) {
  const [voice] = useState(() => new OneVoice());
  useEffect(() => () => voice.dispose(), [voice]);
  const question = useSyncExternalStore(
    (onChange) => voice.subscribe(onChange),
    () => voice.question,
  );
  return (
    <OneVoiceContext.Provider value={voice}>
      {children}
      {question && <VoiceQuestionDialog question={question} voice={voice} />}
    </OneVoiceContext.Provider>
  );
}

/** The tab's OneVoice; throws outside OneVoiceProvider. */
export function useOneVoice(): OneVoice {
  const voice = useContext(OneVoiceContext);
  if (!voice) throw new Error('useOneVoice must be used within a OneVoiceProvider');
  return voice;
}

/** While `held` is given (not null), it holds the microphone. */
export function useHeldVoice(held: HeldVoice | null): void {
  const voice = useOneVoice();
  useEffect(() => (held ? voice.hold(held) : undefined), [voice, held]);
}

function VoiceQuestionDialog({ question, voice }: { question: VoiceQuestion; voice: OneVoice }) {
  const { t } = useTranslation();
  const { claim, held } = question;
  let text: string;
  let action: string;
  if (claim.kind === 'call') {
    text = t(`voice.${claim.action}.question`, { room: held.name, name: claim.name });
    action = t(`voice.${claim.action}.action`);
  } else {
    text =
      claim.name === null
        ? t('voice.join.questionUnnamed', { name: held.name })
        : t('voice.join.question', { name: held.name, room: claim.name });
    action = t('voice.join.action');
  }
  return (
    <Dialog
      title={text}
      onClose={() => voice.answer(false)}
      closeLabel={t('voice.cancel')}
      footer={
        <>
          <Button variant="secondary" onClick={() => voice.answer(false)}>
            {t('voice.cancel')}
          </Button>
          <Button onClick={() => voice.answer(true)}>{action}</Button>
        </>
      }
    >
      <p>{t('voice.why')}</p>
    </Dialog>
  );
}
