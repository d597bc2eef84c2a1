/**
 * Prerendered pages (web/build/prerender.ts): the API may serve /login with the sign-in form
 * already in #root, so that a visitor on a slow link can type while the app's code is still
 * on its way. Free of React: the start-up script adopts the form, and the app's LoginPage takes
 * over what was typed, where the caret was and whether the form was sent, then drops the
 * markup. Markup that does not fit the page the app will show (another language than the
 * stored choice, a stored session, another path) is replaced by the loading view at once.
 */
import { getToken } from '../session/tokenStorage.ts';

/** What a visitor did with the prerendered sign-in form before the app took it over. */
export interface LoginHandoff {
  username: string;
  password: string;
  /** The field that had the focus, by name. */
  focused: string | null;
  /** The form was sent; the app signs in with these values at once. */
  submitted: boolean;
}

let container: HTMLElement | null = null;
let form: HTMLFormElement | null = null;
let submitted = false;
/** The field with the focus, by name: tracked, since the app may replace the markup first. */
let focused: string | null = null;

function fieldName(target: EventTarget | null): string | null {
  return target instanceof HTMLInputElement ? target.name : null;
}

function showLoadingView(root: HTMLElement): void {
  const spinner = document.createElement('div');
  spinner.className = 'boot-spinner';
  spinner.setAttribute('aria-hidden', 'true');
  root.replaceChildren(spinner);
  delete root.dataset.prerendered;
}

/**
 * Called by the start-up script with the language the app will start in: keeps the sign-in
 * form typeable and catches its submission (the build serves its button disabled, so that
 * the browser never sends the form itself, which would put the password in the address).
 */
export function adoptPrerendered(root: HTMLElement, language: string): void {
  const page = root.dataset.prerendered;
  if (!page) return;
  const found = root.querySelector('form');
  if (
    page !== 'login' ||
    window.location.pathname !== '/login' ||
    document.documentElement.lang !== language ||
    getToken() !== null ||
    !found
  ) {
    showLoadingView(root);
    return;
  }
  container = root;
  form = found;
  const button = found.querySelector<HTMLButtonElement>('button[type="submit"]');
  found.addEventListener('submit', (event) => {
    event.preventDefault();
    submitted = true;
    button?.setAttribute('aria-busy', 'true');
    if (button) button.disabled = true;
  });
  if (button) button.disabled = false;
  focused = found.contains(document.activeElement) ? fieldName(document.activeElement) : null;
  found.addEventListener('focusin', (event) => {
    focused = fieldName(event.target);
  });
  // Focus that leaves for somewhere else on the page is gone; focus lost because the app
  // removed the markup is what the app's form takes over.
  found.addEventListener('focusout', () => {
    setTimeout(() => {
      if (found.isConnected && !found.contains(document.activeElement)) focused = null;
    });
  });
}

/**
 * What the visitor typed into the prerendered form; null when there was none. Read when the
 * app renders its form for the first time (the fields keep their values once replaced); the
 * same answer each time until `finishHandoff`.
 */
export function readLoginHandoff(): LoginHandoff | null {
  if (!form) return null;
  const value = (name: string) => {
    const field = form?.elements.namedItem(name);
    return field instanceof HTMLInputElement ? field.value : '';
  };
  return { username: value('username'), password: value('password'), focused, submitted };
}

/** The app has drawn its own form: the prerendered one is gone. */
export function finishHandoff(): void {
  if (container) delete container.dataset.prerendered;
  container = null;
  form = null;
  submitted = false;
  focused = null;
}
