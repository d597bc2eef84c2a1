/** The `--help` texts, global and per command, built from the flag table. */
import { COMMAND_NAMES, COMMANDS, type CommandSpec } from './flags.ts';
import type { CommandName } from './options.ts';

const PROGRAM = 'voice-loadtest';

function usageLine(name: CommandName, spec: CommandSpec): string {
  const parts = spec.flags.map((flag) => {
    const text = flag.value ? `--${flag.name} ${flag.value}` : `--${flag.name}`;
    return flag.required ? text : `[${text}]`;
  });
  if (spec.positional) parts.unshift(spec.positional.name);
  return `${PROGRAM} ${name} ${parts.join(' ')}`;
}

function flagLines(spec: CommandSpec): string[] {
  const rows = spec.flags.map((flag) => [
    flag.value ? `--${flag.name} ${flag.value}` : `--${flag.name}`,
    flag.help,
  ]);
  if (spec.positional) rows.unshift([spec.positional.name, spec.positional.help]);
  rows.push(['--help', 'this help']);
  const width = Math.max(...rows.map(([left]) => (left as string).length));
  return rows.map(([left, help]) => `  ${(left as string).padEnd(width)}  ${help}`);
}

/** One command's help: usage, summary, every flag with one line. */
export function commandHelp(name: CommandName): string {
  const spec = COMMANDS[name];
  return [`Usage: ${usageLine(name, spec)}`, '', spec.summary, '', ...flagLines(spec), ''].join('\n');
}

/** The global help: every command with its flags, and the exit codes. */
export function globalHelp(): string {
  const sections = COMMAND_NAMES.map((name) =>
    [`${name}: ${COMMANDS[name].summary}`, ...flagLines(COMMANDS[name])].join('\n'),
  );
  return [
    `Usage: ${PROGRAM} <command> [flags]   (${PROGRAM} <command> --help for one command)`,
    '',
    'Headless Chromium participants in rooms and calls through the real app, with live progress,',
    'audio verdicts and a self-contained report.',
    '',
    sections.join('\n\n'),
    '',
    'Exit codes: 0 every SLO held, 1 an SLO breached, 2 a usage or setup error.',
    '',
  ].join('\n');
}
