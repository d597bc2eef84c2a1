import { describe, expect, it } from 'vitest';
import { splitPortRange } from './portRanges.ts';

describe('splitPortRange()', () => {
  it('splitPortRange() gives one worker the whole range', () => {
    expect(splitPortRange(40000, 49999, 1)).toEqual([{ rtcMinPort: 40000, rtcMaxPort: 49999 }]);
  });

  it('splitPortRange() covers the range with adjacent, non-overlapping parts', () => {
    const ranges = splitPortRange(40000, 40009, 3);
    expect(ranges).toEqual([
      { rtcMinPort: 40000, rtcMaxPort: 40003 },
      { rtcMinPort: 40004, rtcMaxPort: 40006 },
      { rtcMinPort: 40007, rtcMaxPort: 40009 },
    ]);
  });

  it('splitPortRange() gives each worker one port when counts match', () => {
    expect(splitPortRange(5000, 5001, 2)).toEqual([
      { rtcMinPort: 5000, rtcMaxPort: 5000 },
      { rtcMinPort: 5001, rtcMaxPort: 5001 },
    ]);
  });

  it('splitPortRange() throws when there are fewer ports than workers', () => {
    expect(() => splitPortRange(5000, 5001, 3)).toThrow(RangeError);
    expect(() => splitPortRange(5000, 5001, 0)).toThrow(TypeError);
  });
});
