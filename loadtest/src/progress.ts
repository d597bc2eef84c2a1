/**
 * The terminal side of a run: a progress bar with a line of counters (joined, hearing audio,
 * failed, generator CPU), redrawn in place on a terminal and written as one line every 5 s
 * otherwise (CI logs); at the end, the summary table and the SLO verdicts.
 */
import { figureRows } from './results/figures.ts';
import { GENERATOR_CPU_LIMIT_PCT, type RunSummary } from './results/summarize.ts';

/** Where the run stands. */
export interface ProgressSnapshot {
  /** Participants this generator runs. */
  target: number;
  joined: number;
  /** Participants whose received audio energy is growing. */
  hearing: number;
  failed: number;
  /** The generator's CPU (tool and browsers), percent of the whole machine. */
  cpuPct: number;
  elapsedMs: number;
  /** The whole run: ramp-up and the duration. */
  durationMs: number;
}

/** Where progress goes: a writable with `isTTY` (the terminal) and where the summary goes. */
export interface ProgressStreams {
  progress: { write(text: string): unknown; isTTY?: boolean };
  summary: { write(text: string): unknown };
}

const BAR_WIDTH = 30;
const LOG_EVERY_MS = 5000;

/** The run's progress on the terminal; the runner calls update() each second and finish() once. */
export class Progress {
  readonly #streams: ProgressStreams;
  readonly #tty: boolean;
  #lastLogAt = Number.NEGATIVE_INFINITY;
  #warned = false;
  #drawn = false;

  constructor(streams: ProgressStreams = { progress: process.stderr, summary: process.stdout }) {
    this.#streams = streams;
    this.#tty = streams.progress.isTTY === true;
  }

  /** The counters line: '12/40 joined · 11 hearing audio · 1 failed · generator CPU 43%'. */
  static counters(snapshot: ProgressSnapshot): string {
    const cpu = `generator CPU ${Math.round(snapshot.cpuPct)}%`;
    return `${snapshot.joined}/${snapshot.target} joined · ${snapshot.hearing} hearing audio · ${snapshot.failed} failed · ${cpu}`;
  }

  /** '[#########.....................]  30% 36s/120s'. */
  static bar(snapshot: ProgressSnapshot): string {
    const share =
      snapshot.durationMs > 0 ? Math.min(1, Math.max(0, snapshot.elapsedMs / snapshot.durationMs)) : 0;
    const filled = Math.round(share * BAR_WIDTH);
    const seconds = (ms: number) => `${Math.round(ms / 1000)}s`;
    return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${String(Math.round(share * 100)).padStart(3)}% ${seconds(snapshot.elapsedMs)}/${seconds(snapshot.durationMs)}`;
  }

  update(snapshot: ProgressSnapshot): void {
    const overloaded = snapshot.cpuPct > GENERATOR_CPU_LIMIT_PCT;
    const line = `${Progress.bar(snapshot)}  ${Progress.counters(snapshot)}${overloaded ? ' (generator overloaded)' : ''}`;
    if (overloaded && !this.#warned) {
      this.#warned = true;
      this.#write(
        `warning: the generator is above ${GENERATOR_CPU_LIMIT_PCT}% CPU: it, not the service, may be the bottleneck\n`,
      );
    }
    if (this.#tty) {
      this.#streams.progress.write(`\r\x1b[2K${line}`);
      this.#drawn = true;
    } else if (snapshot.elapsedMs - this.#lastLogAt >= LOG_EVERY_MS) {
      this.#lastLogAt = snapshot.elapsedMs;
      this.#streams.progress.write(`${line}\n`);
    }
  }

  /** Ends the bar and prints the summary table and verdicts. */
  finish(summary: RunSummary): void {
    if (this.#drawn) this.#streams.progress.write('\n');
    this.#drawn = false;
    this.#streams.summary.write(`${Progress.table(summary)}\n`);
  }

  /** The final summary: counts, the figures, each SLO's verdict. */
  static table(summary: RunSummary): string {
    const { counts } = summary;
    const rows = figureRows(summary.aggregates, 'terminal');
    const width = Math.max(...rows.map(([title]) => title.length));
    const lines = [
      `${counts.participants} participants: ${counts.joined} joined, ${counts.failed} failed, ${counts.heard} of ${counts.expectingAudio} heard audio`,
      ...rows.map(([title, value]) => `  ${title.padEnd(width)}  ${value.padStart(9)}`),
    ];
    if (summary.generatorOverloaded)
      lines.push(
        `warning: the generator peaked at ${Math.round(summary.generatorPeakCpuPct ?? 0)}% CPU (over ${GENERATOR_CPU_LIMIT_PCT}%)`,
      );
    const failures = summary.participants.filter((participant) => participant.failed);
    for (const participant of failures.slice(0, 10))
      lines.push(`  failed: ${participant.name}: ${participant.error ?? 'did not join'}`);
    if (failures.length > 10) lines.push(`  … and ${failures.length - 10} more failed`);
    if (summary.verdicts.length === 0) lines.push('No SLO set.');
    for (const verdict of summary.verdicts)
      lines.push(`${verdict.held ? 'HELD    ' : 'BREACHED'} ${verdict.line}`);
    return lines.join('\n');
  }

  #write(text: string): void {
    if (this.#tty && this.#drawn) {
      this.#streams.progress.write(`\r\x1b[2K${text}`);
      this.#drawn = false;
    } else this.#streams.progress.write(text);
  }
}
