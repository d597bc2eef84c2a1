import { type ReactNode, useCallback, useEffect, useRef } from 'react';
import { BrowserRouter, useNavigate } from 'react-router-dom';
import { LanguageProvider } from '../i18n/LanguageProvider.tsx';
import { PATHS, VISITOR_PATHS } from '../session/paths.ts';
import { SessionProvider } from '../session/SessionProvider.tsx';
import { AppRoutes } from './AppRoutes.tsx';
import { SignedInLayer } from './SignedInLayer.tsx';

/**
 * The app in a browser-history router. The session is restored first; every page then waits
 * for the start-up language, which needs the session; a signed-in person's providers sit
 * above the pages (SignedInLayer), so what arrives on the socket reaches whichever is open.
 */
export function App() {
  return (
    <BrowserRouter>
      <Session>
        <LanguageProvider>
          <SignedInLayer>
            <AppRoutes />
          </SignedInLayer>
        </LanguageProvider>
      </Session>
    </BrowserRouter>
  );
}

/**
 * After a 401 the user goes to /login, unless already on a visitor page (a reset link opened
 * with a stale token should still work). Its children are passed through unchanged, so a
 * navigation re-renders this component only, not the tree below.
 */
function Session({ children }: { children: ReactNode }) {
  const navigate = useNavigate();
  const latestNavigate = useRef(navigate);
  useEffect(() => {
    latestNavigate.current = navigate;
  }, [navigate]);
  const onExpired = useCallback(() => {
    if (!VISITOR_PATHS.includes(window.location.pathname)) {
      void latestNavigate.current(PATHS.login, { replace: true });
    }
  }, []);
  return <SessionProvider onExpired={onExpired}>{children}</SessionProvider>;
}
