/** Line charts of the benchmarks' figures: drawn as SVG, screenshot to PNG by the tests' Chromium. */
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@voice/browser-bots';

const WIDTH = 800;
const HEIGHT = 480;
const BOX = { left: 80, right: 30, top: 50, bottom: 60 };

/** One line of a chart. */
export interface Series {
  name: string;
  color: string;
  points: ReadonlyArray<readonly [x: number, y: number]>;
  /** Drawn dashed, without dots: a reference rather than a measurement. */
  dashed?: boolean;
}

/** A horizontal line across the chart: a goal or a limit. */
export interface Limit {
  y: number;
  label: string;
}

/** What lineChart() draws. */
export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  limits?: Limit[];
  /** The axes' tops; by default the data's (and limits'), rounded up to a tick. */
  xMax?: number;
  yMax?: number;
  /** How a y tick reads (e.g. `${y}%`). */
  yTick?: (y: number) => string;
}

/** A step of 1, 2, 2.5 or 5 × 10ⁿ that reaches `max` in at most `ticks` steps. */
function tickStep(max: number, ticks = 5): number {
  const rough = Math.max(max, Number.EPSILON) / ticks;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].find((m) => m * power >= rough) ?? 10;
  return step * power;
}

const thousands = (n: number) => n.toLocaleString('en-US');

/** The chart as an SVG document of 800 × 480. */
export function lineChart(options: LineChartOptions): string {
  const { series, limits = [], yTick = thousands } = options;
  const xs = series.flatMap((s) => s.points.map(([x]) => x));
  const ys = [...series.flatMap((s) => s.points.map(([, y]) => y)), ...limits.map((l) => l.y)];
  const xStep = tickStep(options.xMax ?? Math.max(...xs, 1));
  const yStep = tickStep(options.yMax ?? Math.max(...ys, 1));
  const xMax = options.xMax ?? Math.ceil(Math.max(...xs, 1) / xStep) * xStep;
  const yMax = options.yMax ?? Math.ceil(Math.max(...ys, 1) / yStep) * yStep;
  const x = (value: number) => BOX.left + (value / xMax) * (WIDTH - BOX.left - BOX.right);
  const y = (value: number) => HEIGHT - BOX.bottom - (value / yMax) * (HEIGHT - BOX.top - BOX.bottom);
  const parts: string[] = [];
  for (let value = 0; value <= yMax + yStep / 1e6; value += yStep) {
    parts.push(
      `<line x1="${BOX.left}" x2="${WIDTH - BOX.right}" y1="${y(value)}" y2="${y(value)}" stroke="#ddd"/>`,
      `<text x="${BOX.left - 8}" y="${y(value) + 4}" text-anchor="end">${yTick(value)}</text>`,
    );
  }
  for (let value = 0; value <= xMax + xStep / 1e6; value += xStep) {
    parts.push(
      `<text x="${x(value)}" y="${HEIGHT - BOX.bottom + 20}" text-anchor="middle">${thousands(value)}</text>`,
    );
  }
  for (const limit of limits) {
    // The label above its line, or below it when the line is the top of the plot.
    const labelY = y(limit.y) < BOX.top + 20 ? y(limit.y) + 16 : y(limit.y) - 6;
    parts.push(
      `<line x1="${BOX.left}" x2="${WIDTH - BOX.right}" y1="${y(limit.y)}" y2="${y(limit.y)}" stroke="#c0392b" stroke-dasharray="6 4"/>`,
      `<text x="${WIDTH - BOX.right - 8}" y="${labelY}" text-anchor="end" fill="#c0392b">${limit.label}</text>`,
    );
  }
  for (const s of series) {
    const points = s.points.map(([px, py]) => `${x(px)},${y(py)}`).join(' ');
    const dash = s.dashed ? ' stroke-dasharray="3 3"' : '';
    parts.push(`<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`);
    if (!s.dashed) {
      for (const [px, py] of s.points) {
        parts.push(`<circle cx="${x(px)}" cy="${y(py)}" r="4" fill="${s.color}"/>`);
      }
    }
  }
  // A legend, top left inside the plot, once there is more than one line to tell apart.
  if (series.length > 1) {
    series.forEach((s, i) => {
      const ly = BOX.top + 16 + i * 18;
      const dash = s.dashed ? ' stroke-dasharray="3 3"' : '';
      parts.push(
        `<line x1="${BOX.left + 12}" x2="${BOX.left + 36}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2"${dash}/>`,
        `<text x="${BOX.left + 42}" y="${ly}">${s.name}</text>`,
      );
    });
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="13">
<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>
<text x="${WIDTH / 2}" y="28" text-anchor="middle" font-size="16">${options.title}</text>
${parts.join('\n')}
<text x="${(BOX.left + WIDTH - BOX.right) / 2}" y="${HEIGHT - 15}" text-anchor="middle">${options.xLabel}</text>
<text transform="translate(18 ${(BOX.top + HEIGHT - BOX.bottom) / 2}) rotate(-90)" text-anchor="middle">${options.yLabel}</text>
</svg>`;
}

/** Screenshots `svg` with the tests' Chromium into `file`. */
export async function renderPng(svg: string, file: string): Promise<void> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
    await page.setContent(`<body style="margin:0">${svg}</body>`);
    await page.locator('svg').screenshot({ path: file });
  } finally {
    await browser.close();
  }
}
