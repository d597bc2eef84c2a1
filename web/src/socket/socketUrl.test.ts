import { describe, expect, it } from 'vitest';
import { appSocketUrl } from './socketUrl.ts';

describe('appSocketUrl()', () => {
  it('follows the page: ws: under http:, wss: under https:, same host and port', () => {
    expect(appSocketUrl({ protocol: 'http:', host: '127.0.0.1:8080' }, 'abc')).toBe(
      'ws://127.0.0.1:8080/ws?ticket=abc',
    );
    expect(appSocketUrl({ protocol: 'https:', host: 'voice.example' }, 'abc')).toBe(
      'wss://voice.example/ws?ticket=abc',
    );
  });

  it('escapes the ticket', () => {
    expect(appSocketUrl({ protocol: 'http:', host: 'h' }, 'a b&c=d')).toBe('ws://h/ws?ticket=a%20b%26c%3Dd');
  });
});
