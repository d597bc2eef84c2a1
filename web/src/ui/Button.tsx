import type { ButtonHTMLAttributes } from 'react';
import './controls.css';

interface Props extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: 'primary' | 'secondary' | 'ghost';
  /** Shows a spinner and disables the button. */
  busy?: boolean;
  block?: boolean;
}

export function Button({
  variant = 'primary',
  busy = false,
  block = false,
  disabled,
  className,
  children,
  type = 'button',
  ...rest
}: Props) {
  const classes = ['button', `button--${variant}`, block && 'button--block', className].filter(Boolean);
  return (
    <button
      type={type}
      className={classes.join(' ')}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      {...rest}
    >
      {busy && <span className="spinner spinner--small" aria-hidden="true" />}
      <span>{children}</span>
    </button>
  );
}
