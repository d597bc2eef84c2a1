import type { LegalDocument, LegalTextResponse } from '@voice/protocol';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { errorMessageKey } from '../../api/errorMessage.ts';
import { legalApi } from '../../api/legal.ts';
import { LanguageSelect } from '../../i18n/LanguageSelect.tsx';
import { useLanguage } from '../../i18n/useLanguage.ts';
import { PATHS } from '../../session/guards.tsx';
import { ThemeToggle } from '../../theme/ThemeToggle.tsx';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { Logo } from '../../ui/Logo.tsx';
import { MarkdownView } from './MarkdownView.tsx';
import { parseMarkdown } from './markdown.ts';
import './LegalPage.css';

const TITLES: Record<LegalDocument, string> = { terms: 'legal.terms', privacy: 'legal.privacy' };

type View =
  | { state: 'loading' }
  | { state: 'ready'; answer: LegalTextResponse }
  | { state: 'failed'; errorKey: string };

/**
 * /terms and /privacy (open to everyone): the operator's text, or the default one, in the
 * interface language. The text is shown as text, never as HTML (see markdown.ts).
 */
export function LegalPage({ document }: { document: LegalDocument }) {
  const { t } = useTranslation();
  const { language } = useLanguage();
  const [view, setView] = useState<View>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);

  // `attempt` is a dependency only so that Retry runs the effect again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above
  useEffect(() => {
    const controller = new AbortController();
    // A text in the previous language stays up until the new one arrives.
    setView((previous) => (previous.state === 'ready' ? previous : { state: 'loading' }));
    legalApi.get(document, language, controller.signal).then(
      (answer) => setView({ state: 'ready', answer }),
      (error: unknown) => {
        if (!controller.signal.aborted) setView({ state: 'failed', errorKey: errorMessageKey(error) });
      },
    );
    return () => controller.abort();
  }, [document, language, attempt]);

  const title = t(TITLES[document]);
  // After a switch between the two documents the other one's text is not shown meanwhile.
  const answer = view.state === 'ready' && view.answer.document === document ? view.answer : null;
  const loading = view.state === 'loading' || (view.state === 'ready' && !answer);
  const blocks = answer ? parseMarkdown(answer.text) : [];
  const hasTitle = blocks[0]?.kind === 'heading' && blocks[0].level === 1;

  return (
    <div className="legal">
      <title>{`${title} · ${t('app.name')}`}</title>
      <header className="legal__topbar">
        <Link to={PATHS.root} className="legal__home" aria-label={t('legal.home')}>
          <Logo />
        </Link>
        <div className="legal__controls">
          <LanguageSelect />
          <ThemeToggle />
        </div>
      </header>
      <main className="legal__main">
        <nav className="legal__nav" aria-label={t('legal.documents')}>
          <Link to={PATHS.terms} aria-current={document === 'terms' ? 'page' : undefined}>
            {t('legal.terms')}
          </Link>
          <Link to={PATHS.privacy} aria-current={document === 'privacy' ? 'page' : undefined}>
            {t('legal.privacy')}
          </Link>
        </nav>
        <article className="legal__document" aria-busy={loading}>
          {!hasTitle && <h1>{title}</h1>}
          {loading && (
            <p className="legal__status" role="status">
              <span className="spinner spinner--small" aria-hidden="true" />
              {t('common.loading')}
            </p>
          )}
          {view.state === 'failed' && (
            <div className="legal__status">
              <FormAlert>{t(view.errorKey)}</FormAlert>
              <Button variant="secondary" onClick={retry}>
                {t('common.retry')}
              </Button>
            </div>
          )}
          <MarkdownView blocks={blocks} />
        </article>
      </main>
    </div>
  );
}
