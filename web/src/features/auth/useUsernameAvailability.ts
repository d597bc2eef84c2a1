/** Live username check (SPEC section 5): local rules first, then the server, debounced. */
import { type UsernameUnavailableReason, usernameProblem } from '@voice/protocol';
import { useEffect, useState } from 'react';
import { authApi } from '../../api/auth.ts';

/** Wait after the last keystroke before asking the server. */
export const USERNAME_CHECK_DEBOUNCE_MS = 400;

/** What is known about the typed username. */
export type UsernameAvailability =
  | { state: 'idle' }
  | { state: 'checking' }
  | { state: 'available' }
  | { state: 'unavailable'; reason: UsernameUnavailableReason }
  /** The check itself failed; the server decides on submit. */
  | { state: 'unknown' };

export function useUsernameAvailability(username: string): UsernameAvailability {
  const [result, setResult] = useState<UsernameAvailability>({ state: 'idle' });

  useEffect(() => {
    if (!username) {
      setResult({ state: 'idle' });
      return;
    }
    const problem = usernameProblem(username);
    // Well-formed names show "checking" at once; malformed ones are reported after the pause.
    if (!problem) setResult({ state: 'checking' });
    const controller = new AbortController();
    const timer = setTimeout(() => {
      if (problem) {
        setResult({ state: 'unavailable', reason: problem });
        return;
      }
      authApi.checkUsername(username, controller.signal).then(
        ({ available, reason }) =>
          setResult(available ? { state: 'available' } : { state: 'unavailable', reason: reason ?? 'taken' }),
        () => {
          if (!controller.signal.aborted) setResult({ state: 'unknown' });
        },
      );
    }, USERNAME_CHECK_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [username]);

  return result;
}
