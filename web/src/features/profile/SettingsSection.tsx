import { type ReactNode, useId } from 'react';

/** A titled part of the profile settings, labelled by its heading. */
export function SettingsSection({ title, children }: { title: string; children: ReactNode }) {
  const headingId = useId();
  return (
    <section className="profile-dialog__section" aria-labelledby={headingId}>
      <h3 className="profile-dialog__heading" id={headingId}>
        {title}
      </h3>
      {children}
    </section>
  );
}
