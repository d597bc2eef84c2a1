/**
 * The command line → typed options, every check done before anything starts: unknown or repeated
 * flags, missing ones, bad numbers, durations, URLs, SLOs and impairments, speakers beyond the
 * participants, a shard past its count. Each failure is a UsageError of one line.
 */
import { isAbsolute, resolve } from 'node:path';
import { parseSlo } from '../model/slo.ts';
import { UsageError } from './errors.ts';
import {
  COMMAND_NAMES,
  COMMANDS,
  DEFAULT_ACCOUNTS_FILE,
  DEFAULT_PREFIX,
  DEFAULT_RESULTS_DIR,
  DEFAULT_SLO,
} from './flags.ts';
import { commandHelp, globalHelp } from './help.ts';
import { parseImpair, parseImpairShare } from './impair.ts';
import type { CommandName, CommandOptions, LoadOptions } from './options.ts';
import { parseShard, WHOLE } from './shard.ts';
import { parseDuration, parseRamp, parseUrl, parseWhole } from './units.ts';

/** What parsing reads besides argv: the environment (INIT_CWD, LOADTEST_SECRET), cwd and the clock. */
export interface ParseContext {
  env: Record<string, string | undefined>;
  cwd: string;
  now: Date;
}

/** The flags as given: switches as true, values as text; and the positional arguments. */
interface RawCommand {
  flags: Map<string, string | true>;
  positional: string[];
}

/** Parses `argv` (without node and the script); throws UsageError with one line. */
export function parseArgs(argv: string[], context: ParseContext): CommandOptions {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? rest[0] : undefined;
    if (topic !== undefined && !isCommand(topic)) throw new UsageError(`unknown command '${topic}'`);
    return { command: 'help', text: topic ? commandHelp(topic) : globalHelp() };
  }
  if (!isCommand(first))
    throw new UsageError(`unknown command '${first}' (one of ${COMMAND_NAMES.join(', ')}; --help for more)`);
  if (rest.includes('--help') || rest.includes('-h')) return { command: 'help', text: commandHelp(first) };
  const raw = readFlags(first, rest);
  const builder = BUILDERS[first];
  return builder(new Flags(first, raw), new Paths(context), context);
}

function isCommand(name: string): name is CommandName {
  return (COMMAND_NAMES as string[]).includes(name);
}

/** Splits argv into flags (`--name value`, `--name=value`, `--switch`) and positional arguments. */
function readFlags(command: CommandName, args: string[]): RawCommand {
  const spec = COMMANDS[command];
  const flags = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('--')) {
      if (!spec.positional)
        throw new UsageError(`${command} takes no argument '${arg}' (flags start with --)`);
      positional.push(arg);
      continue;
    }
    const [name = '', inline] = splitOnce(arg.slice(2), '=');
    const flag = spec.flags.find((candidate) => candidate.name === name);
    if (!flag) throw new UsageError(`${command} has no flag --${name} (${command} --help lists them)`);
    if (flags.has(name)) throw new UsageError(`--${name} given twice`);
    if (!flag.value) {
      if (inline !== undefined) throw new UsageError(`--${name} is a switch and takes no value`);
      flags.set(name, true);
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined || (inline === undefined && value.startsWith('--')))
      throw new UsageError(`--${name} needs a value (${flag.value})`);
    flags.set(name, value);
  }
  for (const flag of spec.flags)
    if (flag.required && !flags.has(flag.name))
      throw new UsageError(`${command} needs --${flag.name} ${flag.value ?? ''}`.trimEnd());
  const wanted = spec.positional;
  if (wanted && positional.length < wanted.min) throw new UsageError(`${command} needs ${wanted.name}`);
  if (wanted && positional.length > wanted.max)
    throw new UsageError(`${command} takes one ${wanted.name}, not ${positional.length}`);
  return { flags, positional };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** Typed reads of one command's flags (already checked against its table). */
class Flags {
  constructor(
    readonly command: CommandName,
    readonly raw: RawCommand,
  ) {}

  text(name: string): string | undefined {
    const value = this.raw.flags.get(name);
    return value === true ? undefined : value;
  }

  required(name: string): string {
    return this.text(name) as string;
  }

  on(name: string): boolean {
    return this.raw.flags.get(name) === true;
  }

  whole(name: string, min: number): number | null {
    const text = this.text(name);
    return text === undefined ? null : parseWhole(`--${name}`, text, min);
  }
}

/** Resolves paths against where the person typed the command (npm's INIT_CWD) and names defaults. */
class Paths {
  readonly #base: string;
  readonly #stamp: string;

  constructor(context: ParseContext) {
    this.#base = context.env.INIT_CWD || context.cwd;
    this.#stamp = context.now
      .toISOString()
      .replace(/\.\d+Z$/, 'Z')
      .replaceAll(':', '-');
  }

  resolve(path: string): string {
    return isAbsolute(path) ? path : resolve(this.#base, path);
  }

  /** loadtest-results/<what>-<time>. */
  defaultResults(what: string): string {
    return this.resolve(`${DEFAULT_RESULTS_DIR}/${what}-${this.#stamp}`);
  }
}

type Builder = (flags: Flags, paths: Paths, context: ParseContext) => CommandOptions;

const BUILDERS: Record<CommandName, Builder> = {
  run(flags, paths) {
    const participants = flags.whole('participants', 1) as number;
    const speakers = flags.whole('speakers', 0) as number;
    if (speakers > participants)
      throw new UsageError(`--speakers ${speakers} is more than --participants ${participants}`);
    const ramp = flags.text('ramp');
    return {
      command: 'run',
      room: roomName(flags.required('room')),
      create: flags.on('create'),
      participants,
      speakers,
      rampPerSec: ramp === undefined ? null : parseRamp('--ramp', ramp),
      k: flags.whole('k', 1),
      stage: flags.on('stage'),
      ...loadOptions(flags, paths, participants, speakers > 0),
    };
  },
  calls(flags, paths) {
    const pairs = flags.whole('pairs', 1) as number;
    return { command: 'calls', pairs, turn: flags.on('turn'), ...loadOptions(flags, paths, pairs * 2, true) };
  },
  seed(flags, paths, context) {
    return {
      command: 'seed',
      url: parseUrl('--url', flags.required('url')),
      count: flags.whole('count', 1) as number,
      prefix: prefix(flags),
      secret: secret(flags, context),
      out: paths.resolve(flags.text('out') ?? DEFAULT_ACCOUNTS_FILE),
    };
  },
  cleanup(flags, _paths, context) {
    return {
      command: 'cleanup',
      url: parseUrl('--url', flags.required('url')),
      prefix: prefix(flags),
      secret: secret(flags, context),
    };
  },
  merge(flags, paths) {
    const dirs = flags.raw.positional.map((dir) => paths.resolve(dir));
    const twice = dirs.find((dir, i) => dirs.indexOf(dir) !== i);
    if (twice) throw new UsageError(`merge names ${twice} twice`);
    const out = flags.text('out');
    return {
      command: 'merge',
      dirs,
      out: out ? paths.resolve(out) : paths.defaultResults('merged'),
      png: !flags.on('no-png'),
    };
  },
  report(flags, paths) {
    return {
      command: 'report',
      dir: paths.resolve(flags.raw.positional[0] as string),
      png: !flags.on('no-png'),
    };
  },
};

/** The flags `run` and `calls` share; `participants` bounds a count given to --impair-share. */
function loadOptions(flags: Flags, paths: Paths, participants: number, anySpeaker: boolean): LoadOptions {
  const shardText = flags.text('shard');
  const shard = shardText === undefined ? WHOLE : parseShard(shardText);
  const impairText = flags.text('impair');
  const shareText = flags.text('impair-share');
  if (shareText !== undefined && impairText === undefined)
    throw new UsageError('--impair-share needs --impair (what impairment to apply)');
  const share = shareText === undefined ? { percent: 100 } : parseImpairShare(shareText);
  if ('count' in share && share.count > participants)
    throw new UsageError(`--impair-share ${share.count} is more than the ${participants} participants`);
  const slo = flags.text('slo') ?? (anySpeaker ? DEFAULT_SLO : 'failed<1%');
  parseSlo(slo);
  const out = flags.text('out');
  const suffix = shard.count > 1 ? `-shard-${shard.index}-of-${shard.count}` : '';
  return {
    url: parseUrl('--url', flags.required('url')),
    durationMs: parseDuration('--duration', flags.required('duration')),
    perBrowser: flags.whole('per-browser', 1),
    out: out ? paths.resolve(out) : paths.defaultResults(`${flags.command}${suffix}`),
    accounts: paths.resolve(flags.text('accounts') ?? DEFAULT_ACCOUNTS_FILE),
    slo,
    impair: impairText === undefined ? null : { spec: parseImpair(impairText), share },
    shard,
  };
}

/** A room name as the app allows it (1–100 characters, not blank). */
function roomName(text: string): string {
  const name = text.trim();
  if (name === '' || name.length > 100) throw new UsageError('--room must be 1 to 100 characters');
  return name;
}

/** Usernames are letters, numbers and underscores; the prefix leaves room for a number. */
function prefix(flags: Flags): string {
  const value = flags.text('prefix') ?? DEFAULT_PREFIX;
  if (!/^[A-Za-z0-9_]{1,20}$/.test(value))
    throw new UsageError(`--prefix '${value}' must be 1–20 letters, numbers or underscores`);
  return value;
}

function secret(flags: Flags, context: ParseContext): string {
  const value = flags.text('secret') ?? context.env.LOADTEST_SECRET;
  if (!value) throw new UsageError(`${flags.command} needs the server's secret: --secret or LOADTEST_SECRET`);
  return value;
}
