import type { ReactNode } from 'react';
import './EmptyState.css';

interface Props {
  icon: ReactNode;
  title: string;
  text: string;
  /** A button or link under the text. */
  action?: ReactNode;
}

/** A friendly note where a list has nothing to show yet. */
export function EmptyState({ icon, title, text, action }: Props) {
  return (
    <div className="empty-state">
      <div className="empty-state__icon">{icon}</div>
      <h2 className="empty-state__title">{title}</h2>
      <p className="empty-state__text">{text}</p>
      {action && <div className="empty-state__action">{action}</div>}
    </div>
  );
}
