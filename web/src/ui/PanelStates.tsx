/** What a panel shows before its list: loading, or a failed load with a retry. */
import { useTranslation } from 'react-i18next';
import { Button } from './Button.tsx';
import { EmptyState } from './EmptyState.tsx';
import { AlertIcon } from './icons.tsx';
import './PanelStates.css';

export function PanelLoading() {
  const { t } = useTranslation();
  return (
    <div className="panel-loading" role="status">
      <span className="spinner" aria-hidden="true" />
      <span className="visually-hidden">{t('common.loading')}</span>
    </div>
  );
}

export function PanelLoadFailed({ title, text, onRetry }: { title: string; text: string; onRetry(): void }) {
  const { t } = useTranslation();
  return (
    <div role="alert">
      <EmptyState
        icon={<AlertIcon />}
        title={title}
        text={text}
        action={
          <Button variant="secondary" onClick={onRetry}>
            {t('common.retry')}
          </Button>
        }
      />
    </div>
  );
}
