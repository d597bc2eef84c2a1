/** The notifications feature's app-socket request: a tab says whether it is shown. */
import type { SocketHandlers } from '../socket/handlers.ts';
import { setVisibilitySchema } from './schema.ts';
import type { VisibleTabs } from './VisibleTabs.ts';

export function notificationSocketHandlers(visibleTabs: VisibleTabs): SocketHandlers<'set-visibility'> {
  return {
    'set-visibility': {
      schema: setVisibilitySchema,
      async handle(ctx, { visible }) {
        visibleTabs.set(ctx, visible);
        return { ok: true };
      },
    },
  };
}
