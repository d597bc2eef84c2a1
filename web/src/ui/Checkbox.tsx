import { type InputHTMLAttributes, type ReactNode, useId } from 'react';
import './controls.css';

interface Props extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'id' | 'children'> {
  name: string;
  children: ReactNode;
  error?: string | null;
}

/** A checkbox with its label text and error. */
export function Checkbox({ children, error, ...inputProps }: Props) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="checkbox-field">
      <div className="checkbox">
        <input
          id={id}
          type="checkbox"
          className="checkbox__input"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          {...inputProps}
        />
        <label htmlFor={id} className="checkbox__label">
          {children}
        </label>
      </div>
      {error && (
        <p className="field__error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
