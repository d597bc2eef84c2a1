/**
 * The app's code, which the start-up script (main.tsx) loads: waits for the start-up
 * language's translations, so no screen ever shows raw keys, then renders. Once the browser
 * is idle the fallback language's translations follow, and the service worker is registered
 * on every page, signed in or not, so that it is running when notifications are set up after
 * sign-in (they wait a few seconds at most for it).
 */
import '../styles/global.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { addFallbackLanguage, initI18n } from '../i18n/i18n.ts';
import { registerServiceWorker } from '../notifications/push.ts';
import { App } from './App.tsx';

export async function startApp(container: HTMLElement): Promise<void> {
  try {
    await initI18n();
  } catch (error) {
    console.error('Translations failed to initialise', error);
  }
  createRoot(container).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
  const later = window.requestIdleCallback ?? ((task: () => void) => window.setTimeout(task, 0));
  later(() => {
    addFallbackLanguage().catch((error: unknown) => console.warn('No fallback language', error));
    registerServiceWorker().catch((error: unknown) =>
      console.warn('The service worker could not be registered', error),
    );
  });
}
