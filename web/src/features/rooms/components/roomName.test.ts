import { describe, expect, it } from 'vitest';
import { roomNameProblem } from './RoomForm.tsx';

describe('roomNameProblem', () => {
  it('requires a name, blanks do not count', () => {
    expect(roomNameProblem('')).toBe('rooms.create.nameRequired');
    expect(roomNameProblem('   ')).toBe('rooms.create.nameRequired');
  });

  it("allows 100 characters and says the spec's message past them", () => {
    expect(roomNameProblem('x'.repeat(100))).toBeNull();
    expect(roomNameProblem(` ${'x'.repeat(100)} `)).toBeNull();
    expect(roomNameProblem('x'.repeat(101))).toBe('errors.ROOM_NAME_TOO_LONG');
  });

  it('counts characters as a person sees them: emoji and combining accents count once', () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
    expect(roomNameProblem(family.repeat(20))).toBeNull();
    expect(roomNameProblem(family.repeat(100))).toBeNull();
    expect(roomNameProblem('e\u0301'.repeat(60))).toBeNull();
    expect(roomNameProblem(family.repeat(101))).toBe('errors.ROOM_NAME_TOO_LONG');
  });
});
