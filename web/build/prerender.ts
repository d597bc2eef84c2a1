/**
 * Build step, after `vite build`: the sign-in page prerendered in every language, as
 * dist/prerendered/login.<code>.html: the built index.html with the page's markup in #root and
 * its title in <head>, plus compressed copies. The API serves the one of the visitor's language
 * for /login (api/src/http/prerenderedPages.ts); on a slow link the form is there to type into
 * as soon as the page and its stylesheet are, instead of after the app's code (see
 * src/session/prerendered.ts for the hand-over to the app).
 *
 * The page is rendered by the real components: src/prerender/renderLoginPage.tsx, built for
 * Node by Vite (it imports stylesheets and uses Vite's module features) into a cache folder
 * inside node_modules, where its imports of React and the rest resolve.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LANGUAGE_CODES, type LanguageCode } from '@voice/protocol';
import { build } from 'vite';
import type { RenderedPage } from '../src/prerender/renderLoginPage.tsx';
import { compressFile } from './precompress.ts';

const webRoot = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(webRoot, 'dist');
const serverBuild = path.join(webRoot, 'node_modules', '.cache', 'prerender');

/** The attribute on #root that marks prerendered markup, naming the page. */
export const PRERENDERED_ATTRIBUTE = 'data-prerendered';

/** Where the page of `language` is written, relative to the build. */
export function prerenderedFile(page: string, language: LanguageCode): string {
  return path.join('prerendered', `${page}.${language}.html`);
}

/**
 * index.html with `page` in it: its language on <html>, its title, its markup in #root, and the
 * form's submit button disabled until the start-up script takes the form over (a form sent by
 * the browser itself would put the password in the address).
 */
export function withPrerenderedPage(
  indexHtml: string,
  name: string,
  language: LanguageCode,
  page: RenderedPage,
): string {
  const replace = (html: string, pattern: RegExp, replacement: string) => {
    if (!pattern.test(html)) throw new Error(`the page lacks ${pattern}`);
    return html.replace(pattern, () => replacement);
  };
  const markup = replace(page.markup, /<button type="submit"/g, '<button type="submit" disabled=""');
  let html = replace(indexHtml, /<html lang="[^"]*"/, `<html lang="${language}"`);
  html = replace(html, /<title>[^<]*<\/title>/, `<title>${page.title}</title>`);
  return replace(
    html,
    /<div id="root">[\s\S]*?<\/div>(\s*<\/body>)/,
    `<div id="root" ${PRERENDERED_ATTRIBUTE}="${name}">${markup}</div>$1`,
  );
}

async function main(): Promise<void> {
  await build({
    configFile: false,
    root: webRoot,
    logLevel: 'warn',
    esbuild: { jsx: 'automatic' },
    build: { ssr: 'src/prerender/renderLoginPage.tsx', outDir: serverBuild, emptyOutDir: true },
  });
  const { renderLoginPage } = (await import(
    pathToFileURL(path.join(serverBuild, 'renderLoginPage.js')).href
  )) as typeof import('../src/prerender/renderLoginPage.tsx');
  const indexHtml = await readFile(path.join(dist, 'index.html'), 'utf8');
  await rm(path.join(dist, 'prerendered'), { recursive: true, force: true });
  await mkdir(path.join(dist, 'prerendered'));
  for (const language of LANGUAGE_CODES) {
    const translations = JSON.parse(
      await readFile(path.join(webRoot, '..', 'locales', `${language}.json`), 'utf8'),
    );
    const page = await renderLoginPage(language, translations);
    const file = path.join(dist, prerenderedFile('login', language));
    await writeFile(file, withPrerenderedPage(indexHtml, 'login', language, page));
    await compressFile(file);
  }
  console.log(`prerendered /login in ${LANGUAGE_CODES.length} languages`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
