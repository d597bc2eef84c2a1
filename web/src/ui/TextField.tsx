import { type InputHTMLAttributes, type ReactNode, useId } from 'react';
import './controls.css';

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'children'> {
  label: string;
  name: string;
  /** Shown after the label, e.g. "optional". */
  labelNote?: string;
  /** Help text under the field while there is no error. */
  hint?: ReactNode;
  /** Status line under the field (live region), e.g. the username availability. */
  status?: ReactNode;
  /** The field's error message; marks the input invalid. */
  error?: string | null;
  /** Marks the input invalid without a message of its own (the status line explains). */
  invalid?: boolean;
  /** Content inside the input's right edge, e.g. a show-password button. */
  trailing?: ReactNode;
}

/** A labelled input with its hint, live status and error wired up for assistive technology. */
export function TextField({
  label,
  labelNote,
  hint,
  status,
  error,
  invalid = false,
  trailing,
  className,
  ...inputProps
}: TextFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const statusId = `${id}-status`;
  const errorId = `${id}-error`;
  const describedBy = [error ? errorId : hint ? hintId : null, status ? statusId : null]
    .filter(Boolean)
    .join(' ');
  return (
    <div className={`field${className ? ` ${className}` : ''}`}>
      <label className="field__label" htmlFor={id}>
        {label}
        {labelNote && <span className="field__note"> ({labelNote})</span>}
      </label>
      <div className={`field__control${trailing ? ' field__control--trailing' : ''}`}>
        <input
          id={id}
          className="field__input"
          aria-invalid={error || invalid ? true : undefined}
          aria-describedby={describedBy || undefined}
          {...inputProps}
        />
        {trailing && <div className="field__trailing">{trailing}</div>}
      </div>
      <div className="field__status" id={statusId} aria-live="polite">
        {status}
      </div>
      {error ? (
        <p className="field__error" id={errorId}>
          {error}
        </p>
      ) : (
        hint && (
          <p className="field__hint" id={hintId}>
            {hint}
          </p>
        )
      )}
    </div>
  );
}
