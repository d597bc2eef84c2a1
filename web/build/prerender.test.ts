import { describe, expect, it } from 'vitest';
import { PRERENDERED_ATTRIBUTE, prerenderedFile, withPrerenderedPage } from './prerender.ts';

const INDEX = `<!doctype html>
<html lang="en" data-theme="dark">
  <head>
    <title>Voice</title>
    <script type="module" crossorigin src="/assets/index-abc.js"></script>
  </head>
  <body>
    <div id="root"><div class="boot-spinner" aria-hidden="true"></div></div>
  </body>
</html>
`;

const PAGE = {
  title: 'Willkommen zurück · Voice',
  markup: '<form><input name="username"/><button type="submit" class="button">Anmelden</button></form>',
};

describe('withPrerenderedPage', () => {
  const html = withPrerenderedPage(INDEX, 'login', 'de', PAGE);

  it('puts the markup in #root, marked, in place of the loading view', () => {
    expect(html).toContain(`<div id="root" ${PRERENDERED_ATTRIBUTE}="login"><form><input name="username"/>`);
    expect(html).not.toContain('boot-spinner');
  });

  it("sets the page's language and title, and keeps the build's scripts", () => {
    expect(html).toContain('<html lang="de" data-theme="dark">');
    expect(html).toContain('<title>Willkommen zurück · Voice</title>');
    expect(html).toContain('<script type="module" crossorigin src="/assets/index-abc.js"></script>');
  });

  it('serves the submit button disabled, so the browser never sends the form itself', () => {
    expect(html).toContain('<button type="submit" disabled="" class="button">Anmelden</button>');
  });

  it('fails the build when index.html has changed shape, rather than serving a broken page', () => {
    expect(() =>
      withPrerenderedPage(INDEX.replace('<div id="root">', '<main>'), 'login', 'de', PAGE),
    ).toThrow(/the page lacks/);
    expect(() => withPrerenderedPage(INDEX, 'login', 'de', { ...PAGE, markup: '<form></form>' })).toThrow(
      /lacks/,
    );
  });

  it('names one file per page and language', () => {
    expect(prerenderedFile('login', 'ja')).toBe('prerendered/login.ja.html');
  });
});
