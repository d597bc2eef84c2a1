import type { ReactNode } from 'react';

interface Props {
  title: string;
  /** How many it lists; null while that is not known. */
  count: number | null;
  children: ReactNode;
}

/** A titled list of the friends panel, its count beside the title. */
export function FriendsSection({ title, count, children }: Props) {
  return (
    <section className="friends-section">
      <h2 className="friends-section__title">
        {title}
        {count !== null && <span className="friends-section__count">{count}</span>}
      </h2>
      {children}
    </section>
  );
}
