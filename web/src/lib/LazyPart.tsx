/**
 * A code-split part of the screen that is not a page (the call overlay over every page): its
 * chunk loads through loadChunk. Should that fail for good, the part is left out and logged,
 * the page under it stays, and the part is tried again when the browser next comes online or
 * after RETRY_MS, whichever is first. (A page's own failure is the route's: the error page.)
 */
import { Component, type ComponentType, lazy, type ReactNode, Suspense, useState } from 'react';
import { loadChunk } from './loadChunk.ts';

const RETRY_MS = 30_000;

type Loader = () => Promise<{ default: ComponentType }>;

export function LazyPart({ load, name }: { load: Loader; name: string }) {
  // Each try is a new lazy component (React keeps a failed one failed) under a new boundary.
  const [attempt, setAttempt] = useState(() => ({ key: 0, Part: lazy(() => loadChunk(load)) }));
  const { key, Part } = attempt;
  const retry = () => setAttempt({ key: key + 1, Part: lazy(() => loadChunk(load)) });
  return (
    <PartBoundary key={key} name={name} retry={retry}>
      <Suspense fallback={null}>
        <Part />
      </Suspense>
    </PartBoundary>
  );
}

interface BoundaryProps {
  name: string;
  retry: () => void;
  children: ReactNode;
}

class PartBoundary extends Component<BoundaryProps, { failed: boolean }> {
  override state = { failed: false };
  #stopWaiting: (() => void) | null = null;

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    console.error(`${this.props.name} could not load`, error);
    if (this.#stopWaiting) return;
    const again = () => {
      this.#stop();
      this.props.retry();
    };
    const timer = setTimeout(again, RETRY_MS);
    window.addEventListener('online', again);
    this.#stopWaiting = () => {
      clearTimeout(timer);
      window.removeEventListener('online', again);
    };
  }

  override componentWillUnmount() {
    this.#stop();
  }

  #stop() {
    this.#stopWaiting?.();
    this.#stopWaiting = null;
  }

  override render() {
    return this.state.failed ? null : this.props.children;
  }
}
