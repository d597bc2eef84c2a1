import { FORWARDING } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import { loudestChoices } from './LoudestField.tsx';

describe('loudestChoices', () => {
  it('offers every whole number the API takes, 1 to 8, the default among them', () => {
    expect(loudestChoices()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(loudestChoices()).toContain(FORWARDING.loudestDefault);
    expect(loudestChoices()[0]).toBe(FORWARDING.loudestMin);
    expect(loudestChoices().at(-1)).toBe(FORWARDING.loudestMax);
  });
});
