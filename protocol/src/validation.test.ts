import { describe, expect, it } from 'vitest';
import { ROOM_LIMITS } from './rooms.ts';
import { roomNameTooLong, visibleLength } from './validation.ts';

const FAMILY = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}'; // 👨‍👩‍👧‍👦: 7 code points, 11 UTF-16 units
const E_ACUTE = 'e\u0301'; // é written as a letter and a combining accent

describe('visibleLength', () => {
  it('counts what a person sees: grapheme clusters, not code points or UTF-16 units', () => {
    expect(visibleLength('')).toBe(0);
    expect(visibleLength('Walk lounge')).toBe(11);
    expect(FAMILY.length).toBe(11);
    expect(visibleLength(FAMILY)).toBe(1);
    expect(visibleLength(E_ACUTE.repeat(3))).toBe(3);
    expect(visibleLength('\u{1F1EF}\u{1F1F5}')).toBe(1); // a flag: two regional indicators
    expect(visibleLength('日本語')).toBe(3);
  });
});

describe('roomNameTooLong', () => {
  it('allows 100 characters as seen, however many code points they take', () => {
    expect(roomNameTooLong('x'.repeat(ROOM_LIMITS.nameMax))).toBe(false);
    expect(roomNameTooLong(FAMILY.repeat(20))).toBe(false);
    expect(roomNameTooLong(FAMILY.repeat(100))).toBe(false);
    expect(roomNameTooLong(E_ACUTE.repeat(60))).toBe(false);
    expect(roomNameTooLong(E_ACUTE.repeat(100))).toBe(false);
  });

  it('refuses a 101st character, and a name piled with combining marks past what is stored', () => {
    expect(roomNameTooLong('x'.repeat(ROOM_LIMITS.nameMax + 1))).toBe(true);
    expect(roomNameTooLong(FAMILY.repeat(101))).toBe(true);
    // 10 visible letters, each under 200 combining marks: short to count, huge to store.
    const zalgo = `a${'\u0301'.repeat(200)}`.repeat(10);
    expect(visibleLength(zalgo)).toBe(10);
    expect(roomNameTooLong(zalgo)).toBe(true);
  });
});
