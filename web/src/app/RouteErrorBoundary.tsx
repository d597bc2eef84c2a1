/**
 * Catches what a page throws while rendering (a page whose chunk failed to load included)
 * and shows the error page instead, until the person goes to another path.
 */
import { Component, type ReactNode } from 'react';
import { ErrorPage } from './ErrorPage.tsx';

interface Props {
  /** The current path: a change clears the error. */
  pathname: string;
  children: ReactNode;
}

export class RouteErrorBoundary extends Component<Props, { error: unknown; failed: boolean }> {
  override state = { error: null as unknown, failed: false };

  static getDerivedStateFromError(error: unknown) {
    return { error, failed: true };
  }

  override componentDidUpdate(previous: Props) {
    if (this.state.failed && previous.pathname !== this.props.pathname) {
      this.setState({ error: null, failed: false });
    }
  }

  override render() {
    return this.state.failed ? <ErrorPage error={this.state.error} /> : this.props.children;
  }
}
