import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from 'react';
import { IconButton } from './IconButton.tsx';
import { CloseIcon } from './icons.tsx';
import './Dialog.css';

interface Props {
  /** Heading, also the dialog's accessible name. */
  title: string;
  /** Called on Escape and on the close button; unmount the dialog in response. */
  onClose: () => void;
  /** Accessible name of the close button. */
  closeLabel: string;
  children: ReactNode;
  /** Actions pinned under the scrolling body. */
  footer?: ReactNode;
  className?: string;
}

const FOCUSABLE = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  '[tabindex]:not([tabindex="-1"])',
].join(',');

/** The elements Tab reaches, in order: visible ones, and of each radio group only its tab stop. */
function tabStops(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => {
    if (element.closest('[hidden]') || element.getClientRects().length === 0) return false;
    if (!(element instanceof HTMLInputElement) || element.type !== 'radio' || !element.name) return true;
    const group = [...root.querySelectorAll<HTMLInputElement>(`input[type="radio"]`)].filter(
      (radio) => radio.name === element.name,
    );
    const checked = group.find((radio) => radio.checked);
    return checked ? checked === element : group[0] === element;
  });
}

/**
 * A modal dialog on the native <dialog>: the page behind is inert, Tab cycles inside,
 * Escape closes, and focus returns to the opener. Open while mounted.
 */
export function Dialog({ title, onClose, closeLabel, children, footer, className }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      opener?.focus();
    };
  }, []);

  const keepFocusInside = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== 'Tab') return;
    const stops = tabStops(event.currentTarget);
    const first = stops[0];
    const last = stops.at(-1);
    if (!first || !last) return;
    const active = document.activeElement;
    if (event.shiftKey && (active === first || active === event.currentTarget)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && active === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={ref}
      className={`dialog${className ? ` ${className}` : ''}`}
      aria-labelledby={titleId}
      // Escape closes the native dialog; the close event tells the owner.
      onClose={onClose}
      onKeyDown={keepFocusInside}
    >
      <div className="dialog__header">
        <h2 className="dialog__title" id={titleId}>
          {title}
        </h2>
        <IconButton label={closeLabel} className="dialog__close" onClick={onClose}>
          <CloseIcon />
        </IconButton>
      </div>
      <div className="dialog__body">{children}</div>
      {footer && <div className="dialog__footer">{footer}</div>}
    </dialog>
  );
}
