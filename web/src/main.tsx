import './styles/global.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { createAppRouter } from './app/router.tsx';
import { initI18n } from './i18n/i18n.ts';
import { initTheme } from './theme/theme.ts';
import { installViewportHeightVar } from './theme/viewportHeight.ts';

initTheme();
installViewportHeightVar();

const container = document.getElementById('root');
if (!container) throw new Error('index.html lacks #root');

// Render only once translations are in, so no screen ever shows raw keys.
initI18n()
  .catch((error: unknown) => console.error('Translations failed to initialise', error))
  .finally(() => {
    createRoot(container).render(
      <StrictMode>
        <App router={createAppRouter()} />
      </StrictMode>,
    );
  });
