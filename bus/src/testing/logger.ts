import type { Logger } from '../Logger.ts';

/** A logger for tests that keeps every line, to assert on, and prints errors only. */
export class MemoryLogger implements Logger {
  readonly lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  debug = (message: string, fields?: Record<string, unknown>) => this.#add('debug', message, fields);
  info = (message: string, fields?: Record<string, unknown>) => this.#add('info', message, fields);
  warn = (message: string, fields?: Record<string, unknown>) => this.#add('warn', message, fields);
  error = (message: string, fields?: Record<string, unknown>) => {
    this.#add('error', message, fields);
    console.error(message, fields ?? '');
  };

  #add(level: string, message: string, fields?: Record<string, unknown>) {
    this.lines.push(fields ? { level, message, fields } : { level, message });
  }
}
