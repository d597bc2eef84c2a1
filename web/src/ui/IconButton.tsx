import type { ButtonHTMLAttributes, ReactNode } from 'react';
import './controls.css';

interface Props extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'children'> {
  /** Accessible name, also shown as a tooltip. */
  label: string;
  children: ReactNode;
}

/** A square button showing only an icon. */
export function IconButton({ label, children, className, type = 'button', ...rest }: Props) {
  return (
    <button
      type={type}
      className={`icon-button${className ? ` ${className}` : ''}`}
      aria-label={label}
      title={label}
      {...rest}
    >
      {children}
    </button>
  );
}
