/**
 * Keeps the eight translation files in step with each other and with the web code:
 * same keys as en.json, no empty values, the same {{placeholders}}, every server error
 * code translated, and every literal key the web uses present.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERRORS, LANGUAGE_CODES } from '@voice/protocol';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const webSrc = join(here, '..', 'web', 'src');

type Tree = { [key: string]: string | Tree };

/** Leaf keys as dotted paths; a non-string, non-object leaf is kept as-is to fail the string check. */
function flatten(tree: Tree, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of flatten(value, path)) out.set(k, v);
    } else {
      out.set(path, value);
    }
  }
  return out;
}

function load(code: string): Map<string, unknown> {
  return flatten(JSON.parse(readFileSync(join(here, `${code}.json`), 'utf8')) as Tree);
}

const placeholders = (value: unknown) =>
  [...String(value).matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[1]).sort();

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return ['.ts', '.tsx'].includes(extname(entry.name)) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const en = load('en');

describe('locale files', () => {
  it('exist for exactly the protocol languages', () => {
    const files = readdirSync(here)
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.replace(/\.json$/, ''))
      .sort();
    expect(files).toEqual([...LANGUAGE_CODES].sort());
  });

  it.each(LANGUAGE_CODES.filter((code) => code !== 'en'))('%s has the same keys as en', (code) => {
    const keys = load(code);
    expect(
      [...en.keys()].filter((key) => !keys.has(key)),
      'missing',
    ).toEqual([]);
    expect(
      [...keys.keys()].filter((key) => !en.has(key)),
      'extra',
    ).toEqual([]);
  });

  it.each([...LANGUAGE_CODES])('%s has only non-empty strings', (code) => {
    const bad = [...load(code)].filter(([, value]) => typeof value !== 'string' || value.trim() === '');
    expect(bad.map(([key]) => key)).toEqual([]);
  });

  it.each(LANGUAGE_CODES.filter((code) => code !== 'en'))('%s uses the same placeholders as en', (code) => {
    const mismatched = [...load(code)]
      .filter(
        ([key, value]) => en.has(key) && placeholders(value).join() !== placeholders(en.get(key)).join(),
      )
      .map(([key]) => key);
    expect(mismatched).toEqual([]);
  });

  it('translate every server error code and the generic errors', () => {
    const generic = ['network', 'server', 'unauthorized', 'forbidden', 'notFound', 'validation', 'unknown'];
    const required = [
      ...Object.keys(ERRORS).map((code) => `errors.${code}`),
      ...generic.map((name) => `errors.generic.${name}`),
    ];
    expect(required.filter((key) => !en.has(key))).toEqual([]);
  });

  it("keep the spec's English wording", () => {
    expect(en.get('errors.INVALID_CREDENTIALS')).toBe('Invalid username or password');
    expect(en.get('errors.PASSWORDS_DO_NOT_MATCH')).toBe('Passwords do not match');
    expect(en.get('errors.USERNAME_TAKEN')).toBe('Username is already taken');
    expect(en.get('errors.EMAIL_TAKEN')).toBe('Email is already registered');
    expect(en.get('errors.RESET_EMAIL_FAILED')).toBe('Failed to send reset email. Please try again');
    expect(en.get('errors.RESET_TOKEN_INVALID')).toBe(
      'This password reset link is invalid or has expired. Please request a new one.',
    );
    expect(en.get('auth.fillAllFields')).toBe('Please fill in all fields');
    expect(en.get('resetPassword.failed')).toBe('Failed to reset password. Please try again');
  });

  it('contain every literal key the web code uses', () => {
    const namespaces = new Set([...en.keys()].map((key) => key.split('.')[0]));
    const used = new Set<string>();
    for (const file of sourceFiles(webSrc)) {
      const source = readFileSync(file, 'utf8');
      // t('a.b'), i18nKey="a.b", and any quoted 'ns.key' literal kept in a constant.
      for (const match of source.matchAll(/\bt\(\s*['"`]([^'"`$]+)['"`]/g)) used.add(match[1] as string);
      for (const match of source.matchAll(/i18nKey=["']([^"']+)["']/g)) used.add(match[1] as string);
      for (const match of source.matchAll(/['"`]([A-Za-z]+(?:\.[A-Za-z0-9_]+)+)['"`]/g)) {
        const key = match[1] as string;
        if (namespaces.has(key.split('.')[0] as string)) used.add(key);
      }
    }
    expect(used.size).toBeGreaterThan(20);
    expect([...used].filter((key) => !en.has(key)).sort()).toEqual([]);
  });
});
