// The report: a self-contained HTML page (an <svg> per plot, every participant, no external URL),
// summary.json, results.json, and the PNG plots rendered by Debian's Chromium.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureResults } from '../results/fixtures.ts';
import { summarize } from '../results/summarize.ts';
import { renderHtml } from './html.ts';
import { buildPlots } from './plots.ts';
import { readResults, writeReport } from './write.ts';

const PLOT_IDS = [
  'join-times',
  'loss-over-time',
  'jitter-over-time',
  'mos',
  'generator-cpu',
  'generator-memory',
];
const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'loadtest-report-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function html(results = fixtureResults()): string {
  const summary = summarize(results);
  return renderHtml(summary, buildPlots(summary));
}

describe('renderHtml', () => {
  it('holds an <svg> per plot and every participant by name', () => {
    const page = html(
      fixtureResults({ failing: 1, impaired: { count: 2, spec: { lossPct: 10, delayMs: 80 } } }),
    );
    for (const id of PLOT_IDS) expect(page).toContain(`<svg id="plot-${id}"`);
    expect(page.match(/<svg /g)).toHaveLength(PLOT_IDS.length);
    for (let i = 0; i < 8; i++) expect(page).toContain(`>Load lt_${i}<`);
    expect(page).toContain('Could not join the room');
    expect(page).toContain('asked loss 10%, delay 80 ms; measured loss 0%, delay 80 ms');
    expect(page).toContain('<th>MOS</th>');
  });

  it('loads nothing from anywhere: no external src or href, no script src, a CSP that forbids it', () => {
    const results = fixtureResults({ url: 'https://voice.example.org' });
    const page = html(results);
    const urls = page.match(/https?:\/\/[^\s"'<)]*/g) ?? [];
    expect(new Set(urls)).toEqual(new Set(['https://voice.example.org']));
    expect(page).not.toMatch(/\s(src|href|xlink:href|xmlns)\s*=/i);
    expect(page).not.toMatch(/<script[^>]*\ssrc/i);
    expect(page).not.toMatch(/<link\b/i);
    expect(page).not.toMatch(/@import|url\(/i);
    expect(page).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"`,
    );
  });

  it('puts the verdict first: each SLO held or breached, by how much', () => {
    const page = html(fixtureResults({ lossPct: 6 }));
    const verdictAt = page.indexOf('id="verdict"');
    expect(verdictAt).toBeGreaterThan(0);
    expect(verdictAt).toBeLessThan(page.indexOf('<svg'));
    expect(page).toContain('1 of 4 SLOs breached');
    expect(page).toContain('lossP95 &lt; 2%: 6%, breached by 4%');
    expect(page).toContain('joinP95 &lt; 3000 ms: 1150 ms, held (1850 ms to spare)');
  });

  it('escapes what the app and people wrote', () => {
    const results = fixtureResults({ failing: 1 });
    const last = results.participants.at(-1);
    if (last) {
      last.name = '<img src=x onerror=alert(1)>';
      last.error = '"quoted" & <b>bold</b>';
    }
    const page = html(results);
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).toContain('&quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt;');
    expect(page).not.toContain('<img');
  });

  it('draws "nothing measured" when nobody joined', () => {
    const page = html(fixtureResults({ failing: 8 }));
    expect(page).toContain('nothing measured');
    expect(page.match(/<svg /g)).toHaveLength(PLOT_IDS.length);
  });
});

describe('writeReport', () => {
  it('writes report.html, results.json, summary.json and a PNG per plot', async () => {
    const dir = await tempDir();
    const results = fixtureResults();
    const written = await writeReport(dir, results);
    expect(written.summary.held).toBe(true);
    expect(await readResults(dir)).toEqual(results);
    expect(JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')).counts.participants).toBe(8);
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain('Load lt_7');
    expect(written.pngs.map((file) => file.slice(dir.length + 1))).toEqual(
      PLOT_IDS.map((id) => `plots/${id}.png`),
    );
    for (const file of written.pngs) {
      const bytes = await readFile(file);
      expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
      // A 720×320 chart with text and lines is well above a blank image's few hundred bytes.
      expect((await stat(file)).size).toBeGreaterThan(2000);
    }
  }, 60_000);

  it('keeps the results.json it finds; without PNGs needs no Chromium', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'results.json'), 'kept');
    await writeReport(dir, fixtureResults(), { png: false });
    expect(await readFile(join(dir, 'results.json'), 'utf8')).toBe('kept');
    expect(existsSync(join(dir, 'plots'))).toBe(false);
  });

  it('readResults: a clear line for a missing, broken or foreign file', async () => {
    const dir = await tempDir();
    await expect(readResults(dir)).rejects.toThrow(`no results at ${join(dir, 'results.json')}`);
    await writeFile(join(dir, 'results.json'), '{');
    await expect(readResults(dir)).rejects.toThrow('is not JSON');
    await writeFile(join(dir, 'results.json'), '{"version":2}');
    await expect(readResults(dir)).rejects.toThrow("is not a load test's results");
  });
});
