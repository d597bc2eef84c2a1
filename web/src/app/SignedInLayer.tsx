/**
 * Puts SignedInProviders above the pages once someone is signed in, loading their chunk
 * first behind the full-screen loader; a visitor's pages render without them. Once there
 * they stay for the page's life (they follow a logout themselves), so the pages below are
 * mounted anew at most once: when a visitor signs in, on the way to the dashboard.
 */
import { type ComponentType, type ReactNode, useEffect, useState } from 'react';
import { useSession } from '../session/useSession.ts';
import { FullScreenLoader } from '../ui/FullScreenLoader.tsx';
import { ErrorPage } from './ErrorPage.tsx';
import { loadSignedInProviders } from './pages.ts';

type Providers = ComponentType<{ children: ReactNode }>;

export function SignedInLayer({ children }: { children: ReactNode }) {
  const { status } = useSession();
  const signedIn = status === 'authenticated';
  // Already in when the start-up script fetched them for a stored session: no loader at all.
  const [providers, setProviders] = useState<Providers | null>(() =>
    signedIn ? (loadSignedInProviders.loaded?.SignedInProviders ?? null) : null,
  );
  const [failure, setFailure] = useState<unknown>(null);

  useEffect(() => {
    if (!signedIn || providers) return;
    let current = true;
    setFailure(null);
    loadSignedInProviders().then(
      (module) => current && setProviders(() => module.SignedInProviders),
      (error: unknown) => current && setFailure(error),
    );
    return () => {
      current = false;
    };
  }, [signedIn, providers]);

  if (providers) {
    const SignedIn = providers;
    return <SignedIn>{children}</SignedIn>;
  }
  if (!signedIn) return children;
  return failure ? <ErrorPage error={failure} /> : <FullScreenLoader />;
}
