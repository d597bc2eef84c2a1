import { describe, expect, it } from 'vitest';
import { choiceOf, choiceUrl, imageProblem, MAX_IMAGE_MB, sameChoice } from './avatarChoice.ts';

const MB = 1024 * 1024;

describe('imageProblem', () => {
  it('accepts JPEG, PNG, GIF and WebP up to 5 MB', () => {
    for (const type of ['image/jpeg', 'image/png', 'image/gif', 'image/webp']) {
      expect(imageProblem({ name: 'me', type, size: 5 * MB })).toBeNull();
    }
    expect(MAX_IMAGE_MB).toBe(5);
  });

  it('refuses other types, empty files and files over 5 MB', () => {
    expect(imageProblem({ name: 'me.svg', type: 'image/svg+xml', size: 10 })).toBe('type');
    expect(imageProblem({ name: 'cv.pdf', type: 'application/pdf', size: 10 })).toBe('type');
    expect(imageProblem({ name: 'me.png', type: 'image/png', size: 0 })).toBe('empty');
    expect(imageProblem({ name: 'me.png', type: 'image/png', size: 5 * MB + 1 })).toBe('size');
  });

  it('judges by the name when the system gave no type', () => {
    expect(imageProblem({ name: 'photo.JPEG', type: '', size: 10 })).toBeNull();
    expect(imageProblem({ name: 'photo.heic', type: '', size: 10 })).toBe('type');
  });
});

describe('choices', () => {
  it('reads the current avatar_url', () => {
    expect(choiceOf(null)).toBeNull();
    expect(choiceOf('/avatars/stock/fox.svg')).toEqual({ kind: 'stock', id: 'fox' });
    expect(choiceOf('/avatars/u/abc.webp')).toEqual({ kind: 'current', url: '/avatars/u/abc.webp' });
  });

  it('compares choices', () => {
    const file = new File(['x'], 'a.png', { type: 'image/png' });
    expect(sameChoice(null, null)).toBe(true);
    expect(sameChoice({ kind: 'stock', id: 'fox' }, null)).toBe(false);
    expect(sameChoice({ kind: 'stock', id: 'fox' }, { kind: 'stock', id: 'fox' })).toBe(true);
    expect(sameChoice({ kind: 'stock', id: 'fox' }, { kind: 'stock', id: 'cat' })).toBe(false);
    expect(sameChoice({ kind: 'photo', file }, { kind: 'photo', file })).toBe(true);
    expect(sameChoice({ kind: 'photo', file }, { kind: 'current', url: '/a' })).toBe(false);
    expect(sameChoice({ kind: 'current', url: '/a' }, { kind: 'current', url: '/a' })).toBe(true);
  });

  it('gives the URL to show', () => {
    const file = new File(['x'], 'a.png', { type: 'image/png' });
    expect(choiceUrl({ kind: 'stock', id: 'owl' }, null)).toBe('/avatars/stock/owl.svg');
    expect(choiceUrl({ kind: 'photo', file }, 'blob:1')).toBe('blob:1');
    expect(choiceUrl({ kind: 'current', url: '/avatars/u/1.webp' }, null)).toBe('/avatars/u/1.webp');
    expect(choiceUrl(null, null)).toBeNull();
  });
});
