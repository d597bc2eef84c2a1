import { describe, expect, it } from 'vitest';
import { FRIEND_ROUTES, LEGAL_ROUTES, PROFILE_ROUTES, ROUTES } from './index.ts';
import { paramRoute } from './routes.ts';

describe('paramRoute()', () => {
  it('fills the parameters in order, URL-encoded, and keeps the pattern for the router', () => {
    const route = paramRoute('/rooms/:roomId/invitations/:id');
    expect(route('a b', 'c/d')).toBe('/rooms/a%20b/invitations/c%2Fd');
    expect(route.pattern).toBe('/rooms/:roomId/invitations/:id');
  });

  it('gives every parameterised route of the tables a pattern', () => {
    expect(ROUTES.verifyResetToken.pattern).toBe('/auth/verify-reset-token/:token');
    expect(FRIEND_ROUTES.unfriend('x')).toBe('/users/friend/x');
    expect(FRIEND_ROUTES.cancel.pattern).toBe('/users/friend-request/:id');
    expect(PROFILE_ROUTES.user.pattern).toBe('/users/:id');
    expect(LEGAL_ROUTES.document('terms')).toBe('/legal/terms');
  });
});
