import { type KeyboardEvent, type MouseEvent, type ReactNode, useEffect, useId, useRef } from 'react';
import { IconButton } from './IconButton.tsx';
import { CloseIcon } from './icons.tsx';
import './Dialog.css';

interface Props {
  /** Heading, also the dialog's accessible name. */
  title: string;
  /**
   * Called on Escape, the close button and a click on the backdrop. Unmount the dialog to
   * close it, or keep it mounted to refuse (e.g. to ask about unsaved changes first).
   */
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

/** True when the pointer event lies outside the dialog's box, i.e. on its ::backdrop. */
function onBackdrop(event: MouseEvent<HTMLDialogElement>): boolean {
  if (event.target !== event.currentTarget) return false;
  const box = event.currentTarget.getBoundingClientRect();
  return (
    event.clientX < box.left ||
    event.clientX > box.right ||
    event.clientY < box.top ||
    event.clientY > box.bottom
  );
}

/**
 * A modal dialog on the native <dialog>: the page behind is inert, Tab cycles inside,
 * Escape, the close button and a click on the backdrop ask the owner to close it, and
 * focus returns to the opener. Open while mounted.
 */
export function Dialog({ title, onClose, closeLabel, children, footer, className }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // A click closes only when it both started and ended on the backdrop, not a text selection dragged out.
  const pressedOnBackdrop = useRef(false);

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
      // Escape: the owner decides, the browser does not close the dialog by itself.
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      // Chrome closes anyway on a repeated Escape without user activation (its cancel is then
      // not cancelable); the owner has been asked already, so show the dialog again while mounted.
      onClose={(event) => {
        const dialog = event.currentTarget;
        if (!dialog.open && dialog.isConnected) dialog.showModal();
      }}
      onKeyDown={keepFocusInside}
      // A focused control that is disabled or removed (a setting that settles as it loads) leaves
      // focus nowhere, and the next Tab would start outside: it comes back to the dialog's start.
      onBlur={(event) => {
        if (event.relatedTarget !== null) return;
        const dialog = event.currentTarget;
        setTimeout(() => {
          const active = document.activeElement;
          if (dialog.open && (active === null || active === document.body)) tabStops(dialog)[0]?.focus();
        }, 0);
      }}
      onPointerDown={(event) => {
        pressedOnBackdrop.current = onBackdrop(event);
      }}
      onClick={(event) => {
        if (pressedOnBackdrop.current && onBackdrop(event)) onClose();
        pressedOnBackdrop.current = false;
      }}
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
