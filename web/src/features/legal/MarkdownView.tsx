/**
 * A parsed legal text (markdown.ts) as React elements: strings are escaped by React, so
 * nothing in the text becomes markup.
 */
import type { ReactNode } from 'react';
import type { Block, Inline } from './markdown.ts';

export function MarkdownView({ blocks }: { blocks: Block[] }) {
  return blocks.map((block, index) => (
    // The blocks of one text never move, so their position is their identity.
    // biome-ignore lint/suspicious/noArrayIndexKey: see above
    <BlockView key={index} block={block} />
  ));
}

function BlockView({ block }: { block: Block }) {
  switch (block.kind) {
    case 'heading': {
      const Heading = (['h1', 'h2', 'h3'] as const)[block.level - 1] ?? 'h3';
      return <Heading>{inlines(block.content)}</Heading>;
    }
    case 'paragraph':
      return (
        <p>
          {block.lines.map((line, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text
            <span key={index}>
              {index > 0 && <br />}
              {inlines(line)}
            </span>
          ))}
        </p>
      );
    case 'list': {
      const List = block.ordered ? 'ol' : 'ul';
      return (
        <List>
          {block.items.map((item, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: items of a fixed text
            <li key={index}>{inlines(item)}</li>
          ))}
        </List>
      );
    }
  }
}

/** React text and elements only: strings are escaped by React, so nothing becomes markup. */
function inlines(nodes: Inline[]): ReactNode[] {
  return nodes.map((node, index) => inline(node, index));
}

function inline(node: Inline, key: number): ReactNode {
  switch (node.kind) {
    case 'text':
      return node.text;
    case 'strong':
      return <strong key={key}>{inlines(node.children)}</strong>;
    case 'link':
      return (
        <a key={key} href={node.href} rel="noopener noreferrer nofollow" target="_blank">
          {inlines(node.children)}
        </a>
      );
  }
}
