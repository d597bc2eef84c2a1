/**
 * The minimal markdown of the legal texts, parsed into plain data that React renders as
 * text: headings (#, ##, ###), paragraphs (single line breaks kept, so plain text reads
 * as written), bulleted and numbered lists, **bold**, and links whose address is http(s)
 * or mailto. Anything else, HTML included, stays literal text: an operator's file can
 * never inject markup or script.
 */

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'strong'; children: Inline[] }
  | { kind: 'link'; href: string; children: Inline[] };

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; content: Inline[] }
  /** Each entry is one source line. */
  | { kind: 'paragraph'; lines: Inline[][] }
  | { kind: 'list'; ordered: boolean; items: Inline[][] };

const HEADING = /^(#{1,3})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,9}[.)]\s+(.*)$/;
const SAFE_HREF = /^(https?:\/\/[^\s]+|mailto:[^\s@]+@[^\s@]+)$/i;
// [text](address), **bold**, or a bare web address.
const INLINE = /\[([^\]\n]+)\]\(([^)\s]+)\)|\*\*(.+?)\*\*|(https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"])/g;

/** The address when it is safe to link to, else null. */
export function safeHref(href: string): string | null {
  return SAFE_HREF.test(href) ? href : null;
}

export function parseInline(source: string): Inline[] {
  const out: Inline[] = [];
  const pushText = (text: string) => {
    if (!text) return;
    const last = out[out.length - 1];
    if (last?.kind === 'text') last.text += text;
    else out.push({ kind: 'text', text });
  };
  let at = 0;
  for (const match of source.matchAll(INLINE)) {
    const index = match.index ?? 0;
    pushText(source.slice(at, index));
    const [whole, label, href, bold, bare] = match;
    if (label !== undefined && href !== undefined) {
      const safe = safeHref(href);
      // An unsafe address keeps its words but loses the link.
      if (safe) out.push({ kind: 'link', href: safe, children: parseInline(label) });
      else pushText(label);
    } else if (bold !== undefined) {
      out.push({ kind: 'strong', children: parseInline(bold) });
    } else if (bare !== undefined) {
      out.push({ kind: 'link', href: bare, children: [{ kind: 'text', text: bare }] });
    } else {
      pushText(whole);
    }
    at = index + whole.length;
  }
  pushText(source.slice(at));
  return out;
}

/** `a` then `b`, with the text where they meet merged into one node. */
function joined(a: Inline[], b: Inline[]): Inline[] {
  const last = a[a.length - 1];
  const first = b[0];
  if (last?.kind === 'text' && first?.kind === 'text') {
    return [...a.slice(0, -1), { kind: 'text', text: last.text + first.text }, ...b.slice(1)];
  }
  return [...a, ...b];
}

export function parseMarkdown(source: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: Inline[][] | null = null;
  let list: Extract<Block, { kind: 'list' }> | null = null;
  const close = () => {
    paragraph = null;
    list = null;
  };

  for (const raw of source.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trimEnd();
    if (line.trim() === '') {
      close();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      close();
      const level = (heading[1] as string).length as 1 | 2 | 3;
      blocks.push({ kind: 'heading', level, content: parseInline(heading[2] as string) });
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    const item = bullet ?? numbered;
    if (item) {
      const ordered = numbered !== null;
      if (!list || list.ordered !== ordered) {
        close();
        list = { kind: 'list', ordered, items: [] };
        blocks.push(list);
      }
      list.items.push(parseInline(item[1] as string));
      continue;
    }
    if (list) {
      // An indented line continues the last item.
      const items: Inline[][] = list.items;
      items[items.length - 1] = joined(items[items.length - 1] as Inline[], parseInline(` ${line.trim()}`));
      continue;
    }
    if (!paragraph) {
      paragraph = [];
      blocks.push({ kind: 'paragraph', lines: paragraph });
    }
    paragraph.push(parseInline(line.trim()));
  }
  return blocks;
}
