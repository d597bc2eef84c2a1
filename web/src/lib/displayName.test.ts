import { describe, expect, it } from 'vitest';
import { displayNameProblemKey } from './displayName.ts';

describe('displayNameProblemKey', () => {
  it('requires a name of 2 to 50 characters', () => {
    expect(displayNameProblemKey('')).toBe('profile.nameRequired');
    expect(displayNameProblemKey('A')).toBe('profile.nameRules');
    expect(displayNameProblemKey('Al')).toBeNull();
    expect(displayNameProblemKey('李明')).toBeNull();
    expect(displayNameProblemKey('x'.repeat(50))).toBeNull();
    expect(displayNameProblemKey('x'.repeat(51))).toBe('profile.nameRules');
  });
});
