/**
 * Build step: index.html names, beside the small start-up script, the chunk that script
 * imports dynamically (the app itself) and everything that chunk imports: its scripts as
 * `modulepreload`, its styles as stylesheets. The browser then asks for them as soon as it
 * reads the page, instead of once the start-up script has run: on a slow link that is one
 * round trip less before the first screen. Vite does this itself for static imports only.
 */
import type { HtmlTagDescriptor, Plugin } from 'vite';

/** What this step reads of a Rollup output chunk. */
export interface ChunkInfo {
  type: 'chunk';
  fileName: string;
  /** The modules it holds. */
  moduleIds: string[];
  imports: string[];
  dynamicImports: string[];
  viteMetadata?: { importedCss: Set<string> };
}

type Bundle = Record<string, ChunkInfo | { type: 'asset' }>;

/** The chunk `name` and every chunk it imports statically, in load order. */
function staticGraph(bundle: Bundle, name: string, seen = new Set<string>()): ChunkInfo[] {
  const chunk = bundle[name];
  if (chunk?.type !== 'chunk' || seen.has(name)) return [];
  seen.add(name);
  return [...chunk.imports.flatMap((imported) => staticGraph(bundle, imported, seen)), chunk];
}

/**
 * The tags that preload the chunk that `entry` (or a chunk it imports) imports dynamically and
 * that holds the module matching `module`, with what that chunk imports, minus
 * what the entry's own graph already brings. Throws when there is no such import, so that a
 * moved file fails the build rather than silently slowing the first screen.
 */
export function preloadTags(
  bundle: Bundle,
  entry: ChunkInfo,
  module: RegExp,
  base = '/',
): HtmlTagDescriptor[] {
  const present = staticGraph(bundle, entry.fileName);
  const target = present
    .flatMap((chunk) => chunk.dynamicImports)
    .map((name) => bundle[name])
    .find(
      (chunk): chunk is ChunkInfo => chunk?.type === 'chunk' && chunk.moduleIds.some((id) => module.test(id)),
    );
  if (!target) throw new Error(`${entry.fileName} has no dynamic import of a module matching ${module}`);
  const presentCss = new Set(present.flatMap((chunk) => [...(chunk.viteMetadata?.importedCss ?? [])]));
  const added = staticGraph(bundle, target.fileName).filter((chunk) => !present.includes(chunk));
  const css = [...new Set(added.flatMap((chunk) => [...(chunk.viteMetadata?.importedCss ?? [])]))].filter(
    (file) => !presentCss.has(file),
  );
  return [
    ...css.map(
      (file): HtmlTagDescriptor => ({
        tag: 'link',
        attrs: { rel: 'stylesheet', crossorigin: true, href: `${base}${file}` },
        injectTo: 'head',
      }),
    ),
    ...added.map(
      (chunk): HtmlTagDescriptor => ({
        tag: 'link',
        attrs: { rel: 'modulepreload', crossorigin: true, href: `${base}${chunk.fileName}` },
        injectTo: 'head',
      }),
    ),
  ];
}

/** The Vite plugin: `module` matches the file the start-up script imports dynamically. */
export function preloadAppChunk(module: RegExp): Plugin {
  let base = '/';
  return {
    name: 'voice:preload-app-chunk',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, { bundle, chunk }) {
        if (!bundle || !chunk) return [];
        return preloadTags(bundle as unknown as Bundle, chunk as unknown as ChunkInfo, module, base);
      },
    },
  };
}
