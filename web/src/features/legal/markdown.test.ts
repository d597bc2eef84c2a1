import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown, safeHref } from './markdown.ts';

const text = (t: string) => ({ kind: 'text', text: t });

describe('parseMarkdown()', () => {
  it('reads headings, paragraphs with their line breaks, and both kinds of list', () => {
    const blocks = parseMarkdown(
      '# Terms\r\n\nFirst line\nsecond line\n\n## Rules\n- one\n* two\n  continued\n\n1. first\n2) second\n### Small',
    );
    expect(blocks).toEqual([
      { kind: 'heading', level: 1, content: [text('Terms')] },
      { kind: 'paragraph', lines: [[text('First line')], [text('second line')]] },
      { kind: 'heading', level: 2, content: [text('Rules')] },
      { kind: 'list', ordered: false, items: [[text('one')], [text('two continued')]] },
      { kind: 'list', ordered: true, items: [[text('first')], [text('second')]] },
      { kind: 'heading', level: 3, content: [text('Small')] },
    ]);
  });

  it('keeps plain text as written', () => {
    expect(parseMarkdown('Example Ltd\n1 Main Street\n\nContact us.')).toEqual([
      { kind: 'paragraph', lines: [[text('Example Ltd')], [text('1 Main Street')]] },
      { kind: 'paragraph', lines: [[text('Contact us.')]] },
    ]);
  });

  it('keeps HTML as literal text, never as markup', () => {
    const source = '<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n#### <b>not a heading</b>';
    const blocks = parseMarkdown(source);
    expect(blocks).toEqual([
      {
        kind: 'paragraph',
        lines: [
          [text('<script>alert(1)</script>')],
          [text('<img src=x onerror=alert(1)>')],
          [text('#### <b>not a heading</b>')],
        ],
      },
    ]);
  });
});

describe('parseInline()', () => {
  it('reads bold and safe links, and links bare web addresses', () => {
    expect(
      parseInline('Read **this** and [our site](https://example.org/a?b=1), or https://x.test/p.'),
    ).toEqual([
      text('Read '),
      { kind: 'strong', children: [text('this')] },
      text(' and '),
      { kind: 'link', href: 'https://example.org/a?b=1', children: [text('our site')] },
      text(', or '),
      { kind: 'link', href: 'https://x.test/p', children: [text('https://x.test/p')] },
      text('.'),
    ]);
    expect(parseInline('[mail](mailto:ops@example.org)')).toEqual([
      { kind: 'link', href: 'mailto:ops@example.org', children: [text('mail')] },
    ]);
  });

  it.each([
    'javascript:alert(1)',
    'JAVASCRIPT:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:x',
    '//evil.example/x',
    '/relative',
  ])('makes no link of %s', (href) => {
    const inline = parseInline(`[click](${href})`);
    expect(inline.every((node) => node.kind === 'text')).toBe(true);
    expect(inline.map((node) => (node.kind === 'text' ? node.text : '')).join('')).toMatch(/^click/);
    expect(safeHref(href)).toBeNull();
  });

  it('leaves unbalanced markers alone', () => {
    expect(parseInline('2 ** 3 and [x] (y)')).toEqual([text('2 ** 3 and [x] (y)')]);
  });
});
