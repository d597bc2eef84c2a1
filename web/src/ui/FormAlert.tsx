import type { ReactNode } from 'react';
import { AlertIcon } from './icons.tsx';
import './controls.css';

/** A form-level error, announced as soon as it appears. */
export function FormAlert({ children }: { children: ReactNode }) {
  return (
    <div className="form-alert" role="alert">
      <AlertIcon />
      <span>{children}</span>
    </div>
  );
}
