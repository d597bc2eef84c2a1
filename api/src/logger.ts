/** A small levelled logger writing one line per event to stdout/stderr. */
import type { LogLevel } from './config.ts';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether lines of `level` are written, for callers whose message costs to build. */
  enabled?(level: LogLevel): boolean;
}

// Never let a credential reach the log, whatever a caller passes.
const SECRET_KEYS = /token|password|secret|authorization/i;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_KEYS.test(key)) out[key] = '[redacted]';
    else if (value instanceof Error) out[key] = value.stack ?? value.message;
    else out[key] = value;
  }
  return out;
}

export function createLogger(level: LogLevel, scope = 'api'): Logger {
  const write = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const extra = fields ? ` ${JSON.stringify(redact(fields))}` : '';
    const line = `${new Date().toISOString()} ${at.toUpperCase()} [${scope}] ${message}${extra}\n`;
    (ORDER[at] >= ORDER.warn ? process.stderr : process.stdout).write(line);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    enabled: (at) => ORDER[at] >= ORDER[level],
  };
}
