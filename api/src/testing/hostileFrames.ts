/**
 * Frames no protoo client would send, for fuzzing a protoo endpoint (`/ws` here, `/rtc`
 * on the media server): every JSON type and shape, protoo-shaped messages with the wrong
 * types, text that is not JSON, text frames that are not UTF-8, binary frames. Seeded,
 * so a failure can be replayed.
 */

/** One frame: text (valid UTF-8), raw bytes in a text frame, or a binary frame. */
export type HostileFrame =
  | { kind: 'text'; text: string }
  | { kind: 'raw-text'; bytes: Buffer }
  | { kind: 'binary'; bytes: Buffer };

/** A small fast PRNG (mulberry32): the same seed gives the same frames. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Written as JSON text, not values: some (1e400, 2^53 + 1, -0) do not survive a round trip.
const NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '1.5',
  '1e308',
  '-1e308',
  '1e400',
  '5e-324',
  '9007199254740993',
  '4294967296',
];
const STRINGS = ['""', '"x"', '"\\u0000"', '"\\ud800"', '"🦊"', '"__proto__"', '"constructor"', '"toString"'];
const PRIMITIVES = ['null', 'true', 'false', ...NUMBERS, ...STRINGS];
const KINDS = ['request', 'response', 'notification'];

/** Thousands of hostile frames; `count` of them, deterministic for a seed. */
export function hostileFrames(count: number, seed = 7): HostileFrame[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const int = (max: number) => Math.floor(random() * max);

  const value = (depth: number): string => {
    const roll = depth > 3 ? 0 : int(4);
    if (roll === 0) return pick(PRIMITIVES);
    if (roll === 1) return `[${Array.from({ length: int(4) }, () => value(depth + 1)).join(',')}]`;
    const keys = ['a', 'data', 'id', 'method', '__proto__', 'constructor', 'request', 'ok'];
    return `{${Array.from({ length: int(4) }, () => `"${pick(keys)}":${value(depth + 1)}`).join(',')}}`;
  };
  // Almost a protoo message: one field of the wrong type, or a combination that makes no sense.
  const protooShaped = (): string => {
    const fields: Record<string, string> = {
      [pick(KINDS)]: pick(['true', 'true', 'true', '1', '"yes"', 'null', 'false']),
      id: pick([...NUMBERS, ...STRINGS, 'null', '[]', '{}', 'true', String(int(1e7))]),
      method: pick([...STRINGS, '"accept-friend-request"', '"no-such-method"', '1', 'null', '[]', '{}']),
      data: pick([
        value(2),
        'null',
        '[]',
        '"x"',
        '{"userId":null}',
        '{"userId":{"$gt":""}}',
        '{"userId":[1]}',
      ]),
    };
    if (random() < 0.3) fields[pick(KINDS)] = 'true';
    if (random() < 0.3) delete fields[pick(Object.keys(fields))];
    if (random() < 0.2) fields.ok = pick(['true', 'false', '"x"', 'null']);
    if (random() < 0.2) fields.errorCode = pick([...NUMBERS, '"x"']);
    return `{${Object.entries(fields)
      .map(([k, v]) => `"${k}":${v}`)
      .join(',')}}`;
  };
  const deep = (levels: number) => {
    const [open, close] = pick([
      ['[', ']'],
      ['{"a":', '}'],
    ] as const);
    return `{"request":true,"id":1,"method":"m","data":{"a":${open.repeat(levels)}1${close.repeat(levels)}}}`;
  };
  const notJson = (): string =>
    pick([
      '',
      ' ',
      '{',
      '}',
      '{"request":true',
      'undefined',
      'NaN',
      "{'request':true}",
      '{"request":true,"id":1,"method":"m",}',
      String.fromCharCode(...Array.from({ length: 1 + int(40) }, () => 1 + int(0xd7ff))),
    ]);
  const invalidUtf8 = (): Buffer =>
    pick([
      Buffer.from([0xff]),
      Buffer.from([0xc0, 0xaf]),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.concat([
        Buffer.from('{"request":true,"id":1,"method":"'),
        Buffer.from([0xfe]),
        Buffer.from('"}'),
      ]),
    ]);

  const frames: HostileFrame[] = [];
  while (frames.length < count) {
    const roll = random();
    if (roll < 0.2) frames.push({ kind: 'text', text: pick(PRIMITIVES) });
    else if (roll < 0.4) frames.push({ kind: 'text', text: value(0) });
    else if (roll < 0.75) frames.push({ kind: 'text', text: protooShaped() });
    else if (roll < 0.85) frames.push({ kind: 'text', text: notJson() });
    else if (roll < 0.88) frames.push({ kind: 'text', text: deep(20 + int(3000)) });
    else if (roll < 0.9) frames.push({ kind: 'text', text: `"${'x'.repeat(60_000)}"` });
    else if (roll < 0.95) frames.push({ kind: 'raw-text', bytes: invalidUtf8() });
    else frames.push({ kind: 'binary', bytes: Buffer.from(Array.from({ length: int(64) }, () => int(256))) });
  }
  return frames;
}
