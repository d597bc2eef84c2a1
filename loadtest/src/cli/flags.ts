/**
 * Every command's flags, each with its one help line: the single list the parser checks the
 * command line against and `--help` prints, so the two cannot drift apart.
 */
import type { CommandName } from './options.ts';

/** One flag: `--name VALUE` (or a switch when `value` is absent). */
export interface FlagSpec {
  name: string;
  /** The value's placeholder in help ('URL', 'N'); absent for a switch. */
  value?: string;
  required?: boolean;
  help: string;
}

/** One command: what it does, its positional arguments and its flags. */
export interface CommandSpec {
  summary: string;
  /** Positional arguments ('DIR…'), with how many at least and at most. */
  positional?: { name: string; min: number; max: number; help: string };
  flags: FlagSpec[];
}

export const DEFAULT_PREFIX = 'lt_';
export const DEFAULT_ACCOUNTS_FILE = 'loadtest-accounts.json';
export const DEFAULT_RESULTS_DIR = 'loadtest-results';
/** Judged when no --slo is given: nobody fails, everybody hears (heard only with speakers). */
export const DEFAULT_SLO = 'failed<1%,heard>99%';

const URL_FLAG: FlagSpec = {
  name: 'url',
  value: 'URL',
  required: true,
  help: 'the deployment under test, e.g. https://voice.example.org',
};
const DURATION: FlagSpec = {
  name: 'duration',
  value: 'TIME',
  required: true,
  help: 'how long participants stay once joined: 120s, 2m, 500ms',
};
/** The flags `run` and `calls` share, after their own. */
const LOAD_FLAGS: FlagSpec[] = [
  { name: 'per-browser', value: 'P', help: 'pages per Chromium (default: chosen from the machine)' },
  { name: 'out', value: 'DIR', help: `results directory (default: ${DEFAULT_RESULTS_DIR}/<command>-<time>)` },
  {
    name: 'accounts',
    value: 'FILE',
    help: `the accounts file written by seed (default: ${DEFAULT_ACCOUNTS_FILE})`,
  },
  {
    name: 'slo',
    value: 'EXPR',
    help: `objectives, e.g. 'joinP95<3000,lossP95<2%,mosP05>3.8,heard>99%' (default: '${DEFAULT_SLO}')`,
  },
  {
    name: 'impair',
    value: 'SPEC',
    help: "network impairment, e.g. 'loss=5%,delay=80ms,jitter=20ms,rate=128kbit' (needs root)",
  },
  {
    name: 'impair-share',
    value: 'SHARE',
    help: 'who gets --impair: a percent (20%) or a count of participants (default: 100%)',
  },
  { name: 'shard', value: 'i/n', help: 'take share i (from 0) of n generators; merge joins the results' },
];
const SECRET: FlagSpec = {
  name: 'secret',
  value: 'SECRET',
  help: "the server's LOADTEST_SECRET (default: the LOADTEST_SECRET environment variable)",
};
const PREFIX: FlagSpec = {
  name: 'prefix',
  value: 'PREFIX',
  help: `test accounts' username prefix (default: ${DEFAULT_PREFIX})`,
};

const NO_PNG: FlagSpec = { name: 'no-png', help: 'leave out the PNG plots (they need Chromium)' };

export const COMMANDS: Record<CommandName, CommandSpec> = {
  run: {
    summary: 'participants in one group room: join, talk and listen, measured every second',
    flags: [
      URL_FLAG,
      { name: 'room', value: 'NAME', required: true, help: 'the room to join (by name)' },
      { name: 'create', help: 'create the room first (otherwise it must exist)' },
      { name: 'participants', value: 'N', required: true, help: 'how many participants in the room' },
      { name: 'speakers', value: 'S', required: true, help: 'how many of them speak (at most N)' },
      { name: 'ramp', value: 'R/s', help: 'joins per second, e.g. 5/s (default: as fast as pages allow)' },
      DURATION,
      { name: 'k', value: 'K', help: "voices forwarded to each listener (default: the room's own)" },
      {
        name: 'stage',
        help: 'a stage room: the first account hosts it and invites the other speakers as they raise a hand; the others are its audience',
      },
      ...LOAD_FLAGS,
    ],
  },
  calls: {
    summary: '1:1 calls between pairs of participants, peer to peer or through TURN',
    flags: [
      URL_FLAG,
      { name: 'pairs', value: 'N', required: true, help: 'how many calls (two participants each)' },
      DURATION,
      { name: 'turn', help: 'force the calls through the TURN relay' },
      ...LOAD_FLAGS,
    ],
  },
  seed: {
    summary: 'create, befriend and sign in test accounts in bulk (the server needs LOADTEST_SECRET)',
    flags: [
      URL_FLAG,
      { name: 'count', value: 'N', required: true, help: 'how many accounts' },
      PREFIX,
      SECRET,
      {
        name: 'out',
        value: 'FILE',
        help: `where the accounts are written (default: ${DEFAULT_ACCOUNTS_FILE})`,
      },
    ],
  },
  cleanup: {
    summary: 'remove every test account with the prefix',
    flags: [URL_FLAG, PREFIX, SECRET],
  },
  merge: {
    summary: "join shards' results into one report",
    positional: {
      name: 'DIR…',
      min: 1,
      max: Number.POSITIVE_INFINITY,
      help: "the shards' results directories",
    },
    flags: [
      {
        name: 'out',
        value: 'DIR',
        help: `where the merged report goes (default: ${DEFAULT_RESULTS_DIR}/merged-<time>)`,
      },
      NO_PNG,
    ],
  },
  report: {
    summary: 'rebuild the report from DIR/results.json',
    positional: { name: 'DIR', min: 1, max: 1, help: 'a results directory' },
    flags: [NO_PNG],
  },
};

export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];
