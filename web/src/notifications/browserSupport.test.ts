import { describe, expect, it } from 'vitest';
import {
  browserFamily,
  isMobile,
  type PromptEnvironment,
  shouldShowPermissionPrompt,
} from './browserSupport.ts';

const UA = {
  chromeDesktop:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chromeAndroid:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  safariMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  firefoxDesktop: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  edgeDesktop:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
};

const env = (change: Partial<PromptEnvironment>): PromptEnvironment => ({
  userAgent: UA.chromeDesktop,
  mobileHint: undefined,
  permission: 'default',
  promptShown: false,
  ...change,
});

describe('shouldShowPermissionPrompt', () => {
  it('shows on Safari and on mobile browsers that were never prompted', () => {
    expect(shouldShowPermissionPrompt(env({ userAgent: UA.safariMac }))).toBe(true);
    expect(shouldShowPermissionPrompt(env({ userAgent: UA.safariIphone }))).toBe(true);
    expect(shouldShowPermissionPrompt(env({ userAgent: UA.chromeAndroid }))).toBe(true);
    expect(shouldShowPermissionPrompt(env({ mobileHint: true }))).toBe(true);
  });

  it('shows while permission is denied too: only a granted one is enough', () => {
    expect(shouldShowPermissionPrompt(env({ userAgent: UA.safariMac, permission: 'denied' }))).toBe(true);
  });

  it('does not show on desktop browsers other than Safari', () => {
    for (const userAgent of [UA.chromeDesktop, UA.firefoxDesktop, UA.edgeDesktop]) {
      expect(shouldShowPermissionPrompt(env({ userAgent, mobileHint: false }))).toBe(false);
    }
  });

  it('does not show once granted, once shown, or without notifications', () => {
    expect(shouldShowPermissionPrompt(env({ userAgent: UA.safariMac, permission: 'granted' }))).toBe(false);
    expect(shouldShowPermissionPrompt(env({ userAgent: UA.safariMac, promptShown: true }))).toBe(false);
    expect(shouldShowPermissionPrompt(env({ userAgent: UA.safariIphone, permission: null }))).toBe(false);
  });
});

describe('browserFamily', () => {
  it("picks the guidance text of the person's browser", () => {
    expect(browserFamily(UA.safariMac)).toBe('safari');
    expect(browserFamily(UA.safariIphone)).toBe('safari');
    expect(browserFamily(UA.chromeDesktop)).toBe('chrome');
    expect(browserFamily(UA.chromeAndroid)).toBe('chrome');
    expect(browserFamily(UA.firefoxDesktop)).toBe('firefox');
    expect(browserFamily(UA.edgeDesktop)).toBe('other');
  });
});

describe('isMobile', () => {
  it('believes the client hint, else the user agent', () => {
    expect(isMobile(UA.chromeDesktop, true)).toBe(true);
    expect(isMobile(UA.chromeAndroid, undefined)).toBe(true);
    expect(isMobile(UA.chromeDesktop, false)).toBe(false);
  });
});
