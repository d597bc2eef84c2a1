import { LANGUAGE_CODES } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import { realTranslator as translator } from '../i18n/testing/realTranslator.ts';
import {
  isRetryableMicrophoneError,
  isSafariUserAgent,
  MICROPHONE_ERROR_KEYS,
  microphoneErrorMessage,
  microphoneStatusOf,
} from './microphoneErrors.ts';
import { domError, overconstrained } from './testing/fakeMicrophone.ts';

describe('microphone error messages', () => {
  it("render the spec's English wording", async () => {
    const i18n = await translator('en');
    const text = (error: unknown, safari = false) => {
      const { key, values } = microphoneErrorMessage(error, safari);
      return i18n.t(key, values);
    };
    expect(text(domError('NotAllowedError'))).toBe(
      'Microphone permission denied. Please allow microphone access in your browser settings.',
    );
    expect(text(domError('NotAllowedError'), true)).toContain('Safari > Preferences > Websites > Microphone');
    expect(text(domError('NotFoundError'))).toBe(
      'No microphone found. Please connect a microphone and try again.',
    );
    expect(text(domError('NotReadableError'))).toBe(
      'Microphone is in use by another application. Please close other apps using the microphone.',
    );
    expect(text(domError('AbortError', 'Starting audio failed'))).toBe(
      'Microphone error: Starting audio failed',
    );
    expect(text(domError('AbortError', 'Starting audio failed'), true)).toBe(
      'Safari microphone error: Starting audio failed',
    );
  });

  it.each([...LANGUAGE_CODES])('exist in %s, with the message filled in', async (code) => {
    const i18n = await translator(code);
    for (const key of Object.values(MICROPHONE_ERROR_KEYS)) {
      expect(i18n.exists(key), key).toBe(true);
    }
    expect(i18n.t(MICROPHONE_ERROR_KEYS.other, { message: 'XYZZY' })).toContain('XYZZY');
    expect(i18n.t(MICROPHONE_ERROR_KEYS.otherSafari, { message: 'XYZZY' })).toContain('XYZZY');
    expect(i18n.t(MICROPHONE_ERROR_KEYS.deniedSafari)).toContain('Safari');
  });
});

describe('microphone error classes', () => {
  it.each([
    ['NotAllowedError', 'denied'],
    ['PermissionDeniedError', 'denied'],
    ['NotFoundError', 'no-device'],
    ['DevicesNotFoundError', 'no-device'],
    ['OverconstrainedError', 'constraints-unsupported'],
    ['NotReadableError', 'error'],
    ['AbortError', 'error'],
    ['TypeError', 'error'],
  ])('%s → %s', (name, status) => {
    expect(microphoneStatusOf(domError(name))).toBe(status);
  });

  it('reads OverconstrainedError, which is no DOMException, by its name', () => {
    expect(microphoneStatusOf(overconstrained())).toBe('constraints-unsupported');
  });

  it('retries abort, timeout and network errors only', () => {
    expect(
      ['AbortError', 'TimeoutError', 'NetworkError'].map((n) => isRetryableMicrophoneError(domError(n))),
    ).toEqual([true, true, true]);
    expect(isRetryableMicrophoneError(domError('NotAllowedError'))).toBe(false);
    expect(isRetryableMicrophoneError(new Error('plain'))).toBe(false);
    expect(isRetryableMicrophoneError(null)).toBe(false);
  });

  it('describes a thrown non-error', () => {
    expect(microphoneErrorMessage('weird', false)).toEqual({
      key: MICROPHONE_ERROR_KEYS.other,
      values: { message: 'weird' },
    });
  });
});

describe('isSafariUserAgent', () => {
  it.each([
    [
      'Safari on macOS',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
      true,
    ],
    [
      'Safari on iOS',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
      true,
    ],
    [
      'Chrome',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      false,
    ],
    [
      'Chrome on iOS',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1',
      false,
    ],
    [
      'Firefox on iOS',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/121.0 Mobile/15E148 Safari/605.1.15',
      false,
    ],
    [
      'Edge',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0',
      false,
    ],
    ['Firefox', 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0', false],
    [
      'Android WebView',
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.0.0 Mobile Safari/537.36',
      false,
    ],
    ['nothing', '', false],
  ])('%s', (_name, userAgent, safari) => {
    expect(isSafariUserAgent(userAgent)).toBe(safari);
  });
});
