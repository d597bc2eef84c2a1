/**
 * The report as one self-contained HTML file that opens offline: inline CSS, inline SVG charts, a
 * few lines of inline script to sort the participants' table, and a Content-Security-Policy that
 * lets the page load nothing from anywhere. The tested URL appears as text only.
 */

import { formatValue, type SloUnit } from '../model/slo.ts';
import { figureRows } from '../results/figures.ts';
import type { ParticipantSummary, RunSummary } from '../results/summarize.ts';
import { GENERATOR_CPU_LIMIT_PCT } from '../results/summarize.ts';
import type { ImpairSpec } from '../results/types.ts';
import { escapeHtml } from './escape.ts';
import type { Plot } from './svg.ts';

const STYLE = `
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.meta{color:#555;margin-bottom:16px}
.verdict{padding:12px 16px;border-radius:6px;margin:8px 0}
.held{background:#e6f4ea;border:1px solid #8cc79c}.breached{background:#fde8e6;border:1px solid #e49a92}
.warning{background:#fff4d6;border:1px solid #e2c06b;padding:8px 16px;border-radius:6px}
.verdict ul{margin:6px 0 0;padding-left:20px}.ok{color:#1e7b3a}.bad{color:#b3261e}
table{border-collapse:collapse;font-size:13px}th,td{border-bottom:1px solid #e3e3e3;padding:4px 8px;text-align:left}
th{background:#f4f4f4;position:sticky;top:0}#participants th{cursor:pointer;user-select:none}
#participants th[aria-sort=ascending]::after{content:" \\25B2"}#participants th[aria-sort=descending]::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}.plots{display:flex;flex-wrap:wrap;gap:12px}
.plots svg{border:1px solid #e3e3e3}
`;

/** Sorts the participants' table by the clicked column (numbers by data-v, then text). */
const SORT_SCRIPT = `
document.querySelectorAll('#participants th').forEach(function(th, col){
  th.addEventListener('click', function(){
    var table = th.closest('table'), body = table.tBodies[0];
    var up = th.getAttribute('aria-sort') !== 'ascending';
    table.querySelectorAll('th').forEach(function(h){ h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
    var key = function(row){ var cell = row.cells[col]; var v = cell.getAttribute('data-v');
      return v === null ? cell.textContent : v === '' ? null : Number(v); };
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function(a, b){ var x = key(a), y = key(b);
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      var order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return up ? order : -order; });
    rows.forEach(function(row){ body.appendChild(row); });
  });
});
`;

/** An ImpairSpec in words: 'loss 5%, delay 80 ms, jitter 20 ms, rate 128 kbit/s'. */
export function describeImpair(spec: ImpairSpec): string {
  const parts: string[] = [];
  if (spec.lossPct !== undefined) parts.push(`loss ${spec.lossPct}%`);
  if (spec.delayMs !== undefined) parts.push(`delay ${spec.delayMs} ms`);
  if (spec.jitterMs !== undefined) parts.push(`jitter ${spec.jitterMs} ms`);
  if (spec.rateKbit !== undefined) parts.push(`rate ${spec.rateKbit} kbit/s`);
  return parts.join(', ');
}

function impairCell(participant: ParticipantSummary): string {
  if (!participant.impair) return '';
  const measured = participant.measuredImpair;
  const seen = [
    measured?.lossPct != null ? `loss ${formatValue(measured.lossPct, '%')}` : null,
    measured?.delayMs != null ? `delay ${formatValue(measured.delayMs, 'ms')}` : null,
  ].filter(Boolean);
  return `asked ${describeImpair(participant.impair)}; measured ${seen.length > 0 ? seen.join(', ') : 'nothing'}`;
}

/** A numeric cell sorted by its value; empty when null. */
function num(value: number | null, unit: SloUnit): string {
  if (value === null) return '<td class="num" data-v=""></td>';
  return `<td class="num" data-v="${value}">${escapeHtml(formatValue(value, unit))}</td>`;
}

function text(value: string): string {
  return `<td>${escapeHtml(value)}</td>`;
}

function yesNo(value: boolean | null): string {
  const shown = value === null ? '–' : value ? 'yes' : 'no';
  return `<td data-v="${value === null ? '' : Number(value)}">${shown}</td>`;
}

const COLUMNS = [
  'name',
  'role',
  'browser',
  'joined',
  'join',
  'first audio',
  'on stage',
  'loss',
  'jitter p95',
  'RTT p95',
  'MOS',
  'heard',
  'impairment (asked vs measured)',
  'error',
];

function participantRow(participant: ParticipantSummary): string {
  const browser =
    participant.shard === null ? String(participant.browser) : `${participant.shard}:${participant.browser}`;
  return [
    '<tr>',
    text(participant.name),
    text(participant.role),
    text(browser),
    yesNo(participant.joined),
    num(participant.joinMs, 'ms'),
    num(participant.firstAudioMs, 'ms'),
    num(participant.stageMs, 'ms'),
    num(participant.lossPct, '%'),
    num(participant.jitterP95Ms, 'ms'),
    num(participant.rttP95Ms, 'ms'),
    num(participant.mos, 'MOS'),
    yesNo(participant.heard),
    text(impairCell(participant)),
    text(participant.error ?? ''),
    '</tr>',
  ].join('');
}

function verdictSection(summary: RunSummary): string {
  const overall = summary.held ? 'held' : 'breached';
  const heading =
    summary.verdicts.length === 0
      ? 'No SLO was set'
      : summary.held
        ? `Every SLO held (${summary.verdicts.length})`
        : `${summary.verdicts.filter((verdict) => !verdict.held).length} of ${summary.verdicts.length} SLOs breached`;
  const items = summary.verdicts.map(
    (verdict) => `<li class="${verdict.held ? 'ok' : 'bad'}">${escapeHtml(verdict.line)}</li>`,
  );
  const warning = summary.generatorOverloaded
    ? `<p class="warning">The generator passed ${GENERATOR_CPU_LIMIT_PCT}% of its machine's CPU (peak ${Math.round(summary.generatorPeakCpuPct ?? 0)}%): the figures may show the generator's limits, not the service's. Use more generators (--shard) or fewer pages per browser.</p>`
    : '';
  return `<section class="verdict ${overall}" id="verdict"><strong>${heading}</strong>${items.length ? `<ul>${items.join('')}</ul>` : ''}</section>${warning}`;
}

/** The whole report page. */
export function renderHtml(summary: RunSummary, plots: Plot[]): string {
  const { counts } = summary;
  const aggregates = figureRows(summary.aggregates, 'report').map(
    ([label, value]) => `<tr><td>${label}</td><td class="num">${escapeHtml(value)}</td></tr>`,
  );
  const what = summary.kind === 'calls' ? '1:1 calls' : 'a group room';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Load test report: ${escapeHtml(summary.url)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Load test: ${what} at ${escapeHtml(summary.url)}</h1>
<p class="meta">Started ${escapeHtml(summary.startedAt)}${summary.shards > 1 ? `, ${summary.shards} generators merged` : ''}. ${counts.participants} participants: ${counts.joined} joined, ${counts.failed} failed, ${counts.heard} of ${counts.expectingAudio} heard audio.${summary.slo ? ` SLOs: <code>${escapeHtml(summary.slo)}</code>.` : ''}</p>
${verdictSection(summary)}
<h2>Figures</h2>
<table id="aggregates"><tbody>${aggregates.join('\n')}</tbody></table>
<h2>Plots</h2>
<div class="plots">
${plots.map((plot) => plot.svg).join('\n')}
</div>
<h2>Participants</h2>
<p class="meta">Click a column to sort. Loss is over the whole run; jitter and RTT are each participant's 95th percentile of its one-second readings; MOS is the E-model estimate (README, "MOS").</p>
<table id="participants">
<thead><tr>${COLUMNS.map((column) => `<th>${column}</th>`).join('')}</tr></thead>
<tbody>
${summary.participants.map(participantRow).join('\n')}
</tbody>
</table>
<script>${SORT_SCRIPT}</script>
</body>
</html>
`;
}
