/**
 * Keeps the eight translation files in step with each other and with the web code:
 * same keys as en.json, no empty values, the same {{placeholders}}, every server error
 * code translated, and every literal key the web uses present. A counted string is a plural
 * family (`key_one`, `key_few`, …, as i18next reads them): each language has exactly the forms
 * its CLDR plural rules name (Intl.PluralRules: ru one/few/many/other, ja other only), each
 * form shows {{count}}, and the web passes `count` where it uses one.
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

/** The CLDR plural categories, the suffixes i18next appends to a key it is given a `count` for. */
const PLURAL_CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;
const PLURAL_SUFFIX = new RegExp(`^(.+)_(${PLURAL_CATEGORIES.join('|')})$`);

/** `friends.requests.pending_few` → base `friends.requests.pending`, category `few`; null for a plain key. */
function pluralForm(key: string): { base: string; category: string } | null {
  const match = PLURAL_SUFFIX.exec(key);
  return match ? { base: match[1] as string, category: match[2] as string } : null;
}

/** The forms a language's plural rules name, as this runtime's ICU knows them. */
function categoriesOf(code: string): string[] {
  return [...new Intl.PluralRules(code).resolvedOptions().pluralCategories].sort();
}

/** Each plural family's base key → the categories present. */
function pluralFamilies(keys: Iterable<string>): Map<string, string[]> {
  const families = new Map<string, string[]>();
  for (const key of keys) {
    const form = pluralForm(key);
    if (form) families.set(form.base, [...(families.get(form.base) ?? []), form.category].sort());
  }
  return families;
}

/** Keys with every plural family folded into its base key: what must match across languages. */
function logicalKeys(keys: Iterable<string>): Set<string> {
  return new Set([...keys].map((key) => pluralForm(key)?.base ?? key));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return ['.ts', '.tsx'].includes(extname(entry.name)) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const en = load('en');
const enFamilies = pluralFamilies(en.keys());

describe('locale files', () => {
  it('exist for exactly the protocol languages', () => {
    const files = readdirSync(here)
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.replace(/\.json$/, ''))
      .sort();
    expect(files).toEqual([...LANGUAGE_CODES].sort());
  });

  it.each(LANGUAGE_CODES.filter((code) => code !== 'en'))('%s has the same keys as en', (code) => {
    // Plural families count as one key: their forms differ from language to language.
    const ours = logicalKeys(load(code).keys());
    const theirs = logicalKeys(en.keys());
    expect(
      [...theirs].filter((key) => !ours.has(key)),
      'missing',
    ).toEqual([]);
    expect(
      [...ours].filter((key) => !theirs.has(key)),
      'extra',
    ).toEqual([]);
  });

  it('know the plural rules they are checked against', () => {
    expect(categoriesOf('ru')).toEqual(['few', 'many', 'one', 'other']);
    expect(categoriesOf('en')).toEqual(['one', 'other']);
    expect(categoriesOf('ja')).toEqual(['other']);
    expect(pluralForm('friends.requests.pending_many')).toEqual({
      base: 'friends.requests.pending',
      category: 'many',
    });
    expect(pluralForm('friends.requests.pending')).toBeNull();
    expect(enFamilies.size, 'en has counted strings').toBeGreaterThan(0);
  });

  it.each([...LANGUAGE_CODES])('%s has exactly the plural forms its language needs', (code) => {
    const keys = load(code);
    const needed = categoriesOf(code);
    const wrong = [...pluralFamilies(keys.keys())]
      .filter(([, present]) => present.join() !== needed.join())
      .map(([base, present]) => `${base}: has ${present.join('/')}, needs ${needed.join('/')}`);
    expect(wrong).toEqual([]);
    // A family and a plain key of the same name would leave i18next to pick one of them.
    const shadowed = [...pluralFamilies(keys.keys()).keys()].filter((base) => keys.has(base));
    expect(shadowed).toEqual([]);
  });

  it.each([...LANGUAGE_CODES])('%s shows {{count}} in every plural form', (code) => {
    const missing = [...load(code)]
      .filter(([key, value]) => pluralForm(key) && !placeholders(value).includes('count'))
      .map(([key]) => key);
    expect(missing).toEqual([]);
  });

  it.each([...LANGUAGE_CODES])('%s has only non-empty strings', (code) => {
    const bad = [...load(code)].filter(([, value]) => typeof value !== 'string' || value.trim() === '');
    expect(bad.map(([key]) => key)).toEqual([]);
  });

  it.each(LANGUAGE_CODES.filter((code) => code !== 'en'))('%s uses the same placeholders as en', (code) => {
    // A plural form is compared with en's `other` form: the forms of one family differ by language.
    const reference = (key: string) => {
      const form = pluralForm(key);
      return form ? en.get(`${form.base}_other`) : en.get(key);
    };
    const mismatched = [...load(code)]
      .filter(([key, value]) => {
        const english = reference(key);
        return english !== undefined && placeholders(value).join() !== placeholders(english).join();
      })
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
    const uncounted: string[] = [];
    for (const file of sourceFiles(webSrc)) {
      const source = readFileSync(file, 'utf8');
      // t('a.b'), i18nKey="a.b", and any quoted 'ns.key' literal kept in a constant.
      for (const match of source.matchAll(/\bt\(\s*['"`]([^'"`$]+)['"`]([^)]*)/g)) {
        const key = match[1] as string;
        used.add(key);
        // Without `count` i18next shows none of a family's forms.
        if (enFamilies.has(key) && !/^\s*,\s*\{[^}]*\bcount\b/.test(match[2] as string)) uncounted.push(key);
      }
      for (const match of source.matchAll(/i18nKey=["']([^"']+)["']/g)) used.add(match[1] as string);
      for (const match of source.matchAll(/['"`]([A-Za-z]+(?:\.[A-Za-z0-9_]+)+)['"`]/g)) {
        const key = match[1] as string;
        if (namespaces.has(key.split('.')[0] as string)) used.add(key);
      }
    }
    expect(used.size).toBeGreaterThan(20);
    expect([...used].filter((key) => !en.has(key) && !enFamilies.has(key)).sort()).toEqual([]);
    expect(uncounted, 'plural keys used without a count').toEqual([]);
  });
});
