import type { ReactNode } from 'react';
import './ListSection.css';

interface Props {
  title: string;
  /** How many it lists; null while that is not known. */
  count: number | null;
  children: ReactNode;
}

/** A titled list, its count beside the title. */
export function ListSection({ title, count, children }: Props) {
  return (
    <section className="list-section">
      <h2 className="list-section__title">
        {title}
        {count !== null && <span className="list-section__count">{count}</span>}
      </h2>
      {children}
    </section>
  );
}
