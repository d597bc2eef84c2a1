/**
 * Two small chart kinds drawn as inline SVG, with no library: a histogram and a line chart with
 * several series. They carry no xmlns (inline SVG in HTML needs none), so the report holds no URL.
 */
import { escapeHtml } from './escape.ts';

/** One chart: its file name (plots/<id>.png), title and SVG. */
export interface Plot {
  id: string;
  title: string;
  svg: string;
}

/** A series of a line chart: [x, y] points in x order. */
export interface LineSeries {
  name: string;
  color: string;
  points: Array<[number, number]>;
  dashed?: boolean;
}

const WIDTH = 720;
const HEIGHT = 320;
const BOX = { left: 64, top: 40, bottom: 48 };
/** The right margin: a line chart's holds its legend, clear of the lines. */
const RIGHT = { histogram: 20, lines: 130 };
const INNER_H = HEIGHT - BOX.top - BOX.bottom;

/** A round step that cuts `span` into about `parts` pieces (1, 2 or 5 times a power of ten). */
export function niceStep(span: number, parts = 5): number {
  if (!(span > 0)) return 1;
  const raw = span / parts;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= raw) as number;
  return step * power;
}

const label = (value: number) => String(Math.round(value * 1000) / 1000);

/** The frame: background, title, axis labels and gridlines with ticks for [x0,x1] × [0,yMax]. */
function frame(title: string, xLabel: string, yLabel: string, x: Scale, y: Scale): string[] {
  const right = x.to;
  const parts = [
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escapeHtml(title)}</text>`,
    `<text x="${(BOX.left + right) / 2}" y="${HEIGHT - 10}" text-anchor="middle">${escapeHtml(xLabel)}</text>`,
    `<text transform="translate(16 ${BOX.top + INNER_H / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(yLabel)}</text>`,
  ];
  for (const value of y.ticks()) {
    const at = y.at(value);
    parts.push(
      `<line x1="${BOX.left}" x2="${right}" y1="${at}" y2="${at}" stroke="#e3e3e3"/>`,
      `<text x="${BOX.left - 6}" y="${at + 4}" text-anchor="end">${label(value)}</text>`,
    );
  }
  for (const value of x.ticks())
    parts.push(
      `<text x="${x.at(value)}" y="${BOX.top + INNER_H + 18}" text-anchor="middle">${label(value)}</text>`,
    );
  parts.push(
    `<line x1="${BOX.left}" x2="${BOX.left}" y1="${BOX.top}" y2="${BOX.top + INNER_H}" stroke="#888"/>`,
    `<line x1="${BOX.left}" x2="${right}" y1="${BOX.top + INNER_H}" y2="${BOX.top + INNER_H}" stroke="#888"/>`,
  );
  return parts;
}

/** A linear scale from [min, max] onto pixels. */
class Scale {
  constructor(
    readonly min: number,
    readonly max: number,
    readonly from: number,
    readonly to: number,
  ) {}

  at(value: number): number {
    const share = this.max === this.min ? 0 : (value - this.min) / (this.max - this.min);
    return Math.round((this.from + share * (this.to - this.from)) * 10) / 10;
  }

  ticks(): number[] {
    const step = niceStep(this.max - this.min);
    const out: number[] = [];
    for (let value = Math.ceil(this.min / step) * step; value <= this.max + step / 1e6; value += step)
      out.push(Math.round(value / step) * step);
    return out;
  }
}

function svg(id: string, parts: string[]): string {
  return `<svg id="plot-${id}" class="plot" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12" role="img">\n${parts.join('\n')}\n</svg>`;
}

function empty(id: string, title: string): Plot {
  return {
    id,
    title,
    svg: svg(id, [
      `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
      `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escapeHtml(title)}</text>`,
      `<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle" fill="#888">nothing measured</text>`,
    ]),
  };
}

/** Options of a histogram: fixed bin edges (`binWidth` from `min`) or about `bins` round ones. */
export interface HistogramOptions {
  id: string;
  title: string;
  xLabel: string;
  min?: number;
  max?: number;
  binWidth?: number;
}

/** Counts of `values` per bin, as bars. */
export function histogram(values: number[], options: HistogramOptions): Plot {
  const { id, title, xLabel } = options;
  if (values.length === 0) return empty(id, title);
  const low = options.min ?? Math.min(...values);
  const high = Math.max(options.max ?? Math.max(...values), low);
  const width =
    options.binWidth ??
    niceStep(high - low || 1, Math.min(20, Math.max(5, Math.ceil(2 * Math.sqrt(values.length)))));
  const start = options.min ?? Math.floor(low / width) * width;
  // The highest value falls inside the last bin (bins are [edge, next edge)).
  const binCount = Math.max(1, Math.floor((high - start) / width + 1e-9) + 1);
  const counts = new Array<number>(binCount).fill(0);
  for (const value of values) {
    const bin = Math.min(binCount - 1, Math.max(0, Math.floor((value - start) / width)));
    counts[bin] = (counts[bin] as number) + 1;
  }
  const x = new Scale(start, start + binCount * width, BOX.left, WIDTH - RIGHT.histogram);
  const y = new Scale(0, Math.max(...counts, 1), BOX.top + INNER_H, BOX.top);
  const bars = counts.map((count, i) => {
    const left = x.at(start + i * width);
    const barWidth = Math.max(1, x.at(start + (i + 1) * width) - left - 1);
    const top = y.at(count);
    return `<rect x="${left}" y="${top}" width="${barWidth}" height="${Math.max(0, BOX.top + INNER_H - top)}" fill="#3b6fc4"><title>${label(start + i * width)}–${label(start + (i + 1) * width)}: ${count}</title></rect>`;
  });
  return { id, title, svg: svg(id, [...frame(title, xLabel, 'participants', x, y), ...bars]) };
}

/** Options of a line chart. */
export interface LineChartOptions {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  /** The y axis reaches at least this far (e.g. 100 for a percent of CPU). */
  yMin?: number;
}

/** Each series as a polyline, with a legend. */
export function lineChart(series: LineSeries[], options: LineChartOptions): Plot {
  const { id, title, xLabel, yLabel } = options;
  const points = series.flatMap((line) => line.points);
  if (points.length === 0) return empty(id, title);
  const xs = points.map(([px]) => px);
  const yMax = Math.max(options.yMin ?? 0, ...points.map(([, py]) => py));
  const x = new Scale(
    Math.min(...xs),
    Math.max(Math.max(...xs), Math.min(...xs) + 1),
    BOX.left,
    WIDTH - RIGHT.lines,
  );
  const y = new Scale(0, yMax > 0 ? yMax * 1.05 : 1, BOX.top + INNER_H, BOX.top);
  const lines = series.map((line) => {
    const path = line.points.map(([px, py]) => `${x.at(px)},${y.at(py)}`).join(' ');
    const dash = line.dashed ? ' stroke-dasharray="6 4"' : '';
    return `<polyline points="${path}" fill="none" stroke="${line.color}" stroke-width="2"${dash}><title>${escapeHtml(line.name)}</title></polyline>`;
  });
  const legend = series.map((line, i) => {
    const top = BOX.top + 6 + i * 16;
    const left = WIDTH - RIGHT.lines + 12;
    return `<line x1="${left}" x2="${left + 18}" y1="${top}" y2="${top}" stroke="${line.color}" stroke-width="2"/><text x="${left + 24}" y="${top + 4}">${escapeHtml(line.name)}</text>`;
  });
  return { id, title, svg: svg(id, [...frame(title, xLabel, yLabel, x, y), ...lines, ...legend]) };
}
