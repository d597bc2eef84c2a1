/** The M key mutes and unmutes your microphone in a room or a call, unless you are typing. */
import { useEffect } from 'react';

export function useMuteKey(toggle: (() => void) | null): void {
  useEffect(() => {
    if (!toggle) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() !== 'm' || event.ctrlKey || event.metaKey || event.altKey || event.repeat)
        return;
      const target = event.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [contenteditable="true"]')) return;
      toggle();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [toggle]);
}
