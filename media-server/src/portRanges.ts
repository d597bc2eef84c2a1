/** The ports one mediasoup worker may bind, inclusive. */
export interface PortRange {
  readonly rtcMinPort: number;
  readonly rtcMaxPort: number;
}

/**
 * Splits `min..max` into `count` adjacent, non-overlapping ranges as even as possible (the first
 * ranges take one extra port each when it does not divide). Workers must not share ports: two
 * workers binding the same port would fail to create transports whenever the other holds it.
 */
export function splitPortRange(min: number, max: number, count: number): PortRange[] {
  const total = max - min + 1;
  if (!Number.isInteger(count) || count < 1) throw new TypeError(`count must be a positive integer`);
  if (total < count) throw new RangeError(`${total} ports cannot be split into ${count} ranges`);
  const base = Math.floor(total / count);
  const extra = total % count;
  const ranges: PortRange[] = [];
  let next = min;
  for (let i = 0; i < count; i++) {
    const size = base + (i < extra ? 1 : 0);
    ranges.push(Object.freeze({ rtcMinPort: next, rtcMaxPort: next + size - 1 }));
    next += size;
  }
  return ranges;
}
