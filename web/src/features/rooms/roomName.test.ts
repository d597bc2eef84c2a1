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
});
