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
  const [providers, setProviders] = useState<Providers | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  // Usually in already (fetched by the start-up script for a stored session, or in the
  // background on the sign-in page): then they are used at once, with no loader between.
  const ready = providers ?? (signedIn ? (loadSignedInProviders.loaded?.SignedInProviders ?? null) : null);

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

  if (ready) {
    const SignedIn = ready;
    return <SignedIn>{children}</SignedIn>;
  }
  if (!signedIn) return children;
  return failure ? <ErrorPage error={failure} /> : <FullScreenLoader />;
}
