/**
 * The start-up script, kept small so that it runs early: it applies the stored theme and asks
 * for the three things the first screen needs side by side, instead of one after another as
 * each would otherwise wait for the code that asks for it: the app's code (which index.html
 * also names, so it is already on its way), the translations of the start-up language, and
 * the page the address opens on. On a slow link each of those waits costs a round trip.
 */

import { preloadStartPage } from './app/pages.ts';
import { loadTranslations, provisionalLanguage } from './i18n/translations.ts';
import { loadChunk, watchStylesheetFailures } from './lib/loadChunk.ts';
import { adoptPrerendered } from './session/prerendered.ts';
import { initTheme } from './theme/theme.ts';
import { installViewportHeightVar } from './theme/viewportHeight.ts';

watchStylesheetFailures();
initTheme();
installViewportHeightVar();

const container = document.getElementById('root');
if (!container) throw new Error('index.html lacks #root');

const language = provisionalLanguage();
// A sign-in form the server drew stays typeable until the app takes it over.
adoptPrerendered(container, language);
// i18next reads the same translations when the app starts, and reports a failure then.
loadTranslations(language).catch(() => {});
preloadStartPage(window.location.pathname);

loadChunk(() => import('./app/start.tsx')).then(
  ({ startApp }) => startApp(container),
  (error: unknown) => {
    // Without the app's code there is no React to draw the error page: the same page, by hand.
    console.error('The app failed to load', error);
    const title = document.createElement('h2');
    title.textContent = 'Unexpected Application Error!';
    const message = document.createElement('h3');
    message.style.fontStyle = 'italic';
    message.textContent = error instanceof Error ? error.message : String(error);
    container.replaceChildren(title, message);
  },
);
