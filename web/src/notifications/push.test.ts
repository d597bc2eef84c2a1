import { describe, expect, it } from 'vitest';
import { base64UrlToBytes } from './push.ts';

describe('base64UrlToBytes', () => {
  it('decodes base64url without padding, as VAPID keys are given', () => {
    expect([...base64UrlToBytes('-_8')]).toEqual([0xfb, 0xff]);
    expect([...base64UrlToBytes('AQIDBA')]).toEqual([1, 2, 3, 4]);
    expect(base64UrlToBytes(Buffer.alloc(65, 4).toString('base64url'))).toHaveLength(65);
  });
});
