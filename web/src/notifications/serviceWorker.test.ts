/**
 * The service worker (web/public/sw.js) is plain JavaScript that cannot import the protocol:
 * its copies of the spec's constants must stay equal to protocol's. Its behaviour is tested
 * in the browser (e2e/tests/notifications.spec.ts).
 */
import { readFileSync } from 'node:fs';
import { NOTIFICATIONS } from '@voice/protocol';
import { describe, expect, it } from 'vitest';

const source = readFileSync(new URL('../../public/sw.js', import.meta.url), 'utf8');

/** The value of `const NAME = <literal>;` in the worker. */
function constant(name: string): unknown {
  const match = new RegExp(`^const ${name} = (.+);$`, 'm').exec(source);
  if (!match?.[1]) throw new Error(`sw.js declares no ${name}`);
  return JSON.parse(match[1]);
}

describe('sw.js', () => {
  it("keeps protocol's notification constants", () => {
    expect(constant('AUTO_CLOSE_MS')).toBe(NOTIFICATIONS.autoCloseMs);
    expect(constant('CALL_VIBRATION')).toEqual(NOTIFICATIONS.callVibration);
  });
});
