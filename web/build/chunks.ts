/**
 * How the build groups modules into chunks. Left to itself, Rollup makes a chunk of every
 * set of modules that the same pages share, because the pages are imported dynamically from
 * the start-up script and it cannot know that the app's own chunk is always there before
 * them: the sign-in page then came in some twenty requests, and on a slow link each response's
 * headers cost as much as a small module. Instead:
 *
 * - `vendor`: React, the router and i18next, which every page needs and which change far less
 *   often than the app (cached across releases);
 * - `boot`: the page's entry, the start-up script (src/main.tsx) and what it imports; it is
 *   the entry chunk itself. Named, because Rollup would otherwise move what `start` imports
 *   too into `start`, and the start-up script would then wait for all of `start` and `vendor`
 *   before it could run;
 * - `start`: what the app's own chunk (src/app/start.tsx) imports statically, and what two or
 *   more visitor pages share, except what `boot` holds; so the sign-in page is index.html, the
 *   start-up script, `vendor`, `start` (with its stylesheet), its own small chunk and its
 *   translations;
 * - everything else as Rollup chooses: the pages behind sign-in, the signed-in providers with
 *   their libraries, and each language, are chunks only they load.
 */
import type { Plugin, Rollup } from 'vite';

/** What every page needs, the sign-in page included: React, the router and i18next. */
export const VENDOR =
  /[\\/]node_modules[\\/](?:react|react-dom|scheduler|react-router|react-router-dom|i18next|react-i18next|html-parse-stringify|void-elements|use-sync-external-store)[\\/]/;

/** Which modules are which, by path. */
export interface ChunkPlan {
  /** The page's entry: index.html, as Vite makes a module of it, which imports the start-up script. */
  entry: RegExp;
  /** The app's own chunk, imported dynamically by the start-up script. */
  start: RegExp;
  /** The visitor pages: their own chunks, but what they import goes to `start`. */
  visitorPages: RegExp;
}

export const CHUNK_PLAN: ChunkPlan = {
  entry: /[\\/]index\.html$/,
  start: /[\\/]src[\\/]app[\\/]start\.tsx$/,
  visitorPages:
    /[\\/]src[\\/]features[\\/]auth[\\/](?:Login|Register|ForgotPassword|ResetPassword)Page\.tsx$/,
};

type ModuleGraph = Pick<Rollup.ManualChunkMeta, 'getModuleIds' | 'getModuleInfo'>;

/** `roots` and every module they import statically, transitively. */
function staticClosure(graph: ModuleGraph, roots: string[], follow = (_id: string) => true): Set<string> {
  const seen = new Set<string>();
  const pending = [...roots];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    if (follow(id)) pending.push(...(graph.getModuleInfo(id)?.importedIds ?? []));
  }
  return seen;
}

const isLibrary = (id: string) => /[\\/]node_modules[\\/]/.test(id) || id.startsWith('\0');

/** The chunk of each module that this plan places; the others are left to Rollup. */
export function planChunks(graph: ModuleGraph, plan: ChunkPlan = CHUNK_PLAN): Map<string, string> {
  const ids = [...graph.getModuleIds()];
  const matching = (pattern: RegExp) => ids.filter((id) => pattern.test(id));
  const [entry] = matching(plan.entry);
  const [start] = matching(plan.start);
  if (!entry || !start) throw new Error('The chunk plan found no start-up script or no app module');
  const inEntry = staticClosure(graph, [entry]);
  const chunks = new Map<string, string>();
  for (const id of inEntry) chunks.set(id, 'boot');

  // The app's modules (the libraries are placed below) that the app imports, or that two or
  // more visitor pages share; what one page alone imports stays in that page's chunk.
  const appModules = (root: string) => [...staticClosure(graph, [root], (id) => !isLibrary(id))];
  const pages = matching(plan.visitorPages);
  const sharing = new Map<string, number>();
  for (const page of pages) for (const id of appModules(page)) sharing.set(id, (sharing.get(id) ?? 0) + 1);
  const shared = [...sharing].filter(([, count]) => count > 1).map(([id]) => id);
  for (const id of [...appModules(start), ...shared]) {
    if (!isLibrary(id) && !inEntry.has(id) && !pages.includes(id)) chunks.set(id, 'start');
  }

  // The libraries, and what they import of Rollup's helpers (CommonJS): `vendor` must need no
  // other chunk, or a page could run before React's own modules have (a cycle between chunks).
  const libraries = new Set(ids.filter((id) => VENDOR.test(id)));
  for (const id of staticClosure(graph, [...libraries], (id) => libraries.has(id))) {
    if (!libraries.has(id) && !id.startsWith('\0')) continue;
    if (inEntry.has(id)) throw new Error(`${id} is needed by the start-up script and by the libraries`);
    chunks.set(id, 'vendor');
  }
  return chunks;
}

/** Fails the build if `vendor` imports another chunk (see planChunks). */
export function vendorStandsAlone(): Plugin {
  return {
    name: 'voice:vendor-stands-alone',
    apply: 'build',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type === 'chunk' && chunk.name === 'vendor' && chunk.imports.length > 0) {
          throw new Error(`The vendor chunk imports ${chunk.imports.join(', ')}: see build/chunks.ts`);
        }
      }
    },
  };
}

/** Rollup's `manualChunks` for this plan. */
export function manualChunks(plan: ChunkPlan = CHUNK_PLAN): Rollup.GetManualChunk {
  let chunks: Map<string, string> | null = null;
  return (id, meta) => {
    chunks ??= planChunks(meta, plan);
    return chunks.get(id);
  };
}
