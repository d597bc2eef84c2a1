/**
 * The parsed command line: one options type per command, told apart by `command`. Paths are
 * absolute (resolved against INIT_CWD, which npm sets, or the working directory).
 */
import type { ImpairSpec } from '../results/types.ts';
import type { ImpairShare } from './impair.ts';
import type { Shard } from './shard.ts';

/** What `run` and `calls` share: where, how long, how many per browser, shards, SLOs, impairment. */
export interface LoadOptions {
  /** The deployment's base URL, without a trailing slash. */
  url: string;
  durationMs: number;
  /** Pages per Chromium; null: chosen from the machine. */
  perBrowser: number | null;
  /** The results directory. */
  out: string;
  /** The accounts file `seed` wrote (tokens to sign the participants in). */
  accounts: string;
  /** The SLO expression as given (validated), '' for none. */
  slo: string;
  /** The impairment and who gets it; null without --impair. */
  impair: { spec: ImpairSpec; share: ImpairShare } | null;
  shard: Shard;
}

/** `run`: participants in one group room. */
export interface RunOptions extends LoadOptions {
  command: 'run';
  room: string;
  /** Create the room (otherwise it must exist). */
  create: boolean;
  participants: number;
  speakers: number;
  /** Joins per second; null: as fast as the pages allow. */
  rampPerSec: number | null;
  /** Voices forwarded to each listener (the room's K); null: the room's own. */
  k: number | null;
  /** A stage room (speakers on stage, the rest in the audience). */
  stage: boolean;
}

/** `calls`: 1:1 calls between pairs. */
export interface CallsOptions extends LoadOptions {
  command: 'calls';
  pairs: number;
  /** Force the calls through TURN (relay) instead of peer to peer. */
  turn: boolean;
}

/** `seed`: test accounts in bulk through the server's LOADTEST_SECRET route. */
export interface SeedOptions {
  command: 'seed';
  url: string;
  count: number;
  prefix: string;
  secret: string;
  /** Where the accounts and their tokens are written. */
  out: string;
}

/** `cleanup`: removes the test accounts with `prefix`. */
export interface CleanupOptions {
  command: 'cleanup';
  url: string;
  prefix: string;
  secret: string;
}

/** `merge`: shard results into one. */
export interface MergeOptions {
  command: 'merge';
  dirs: string[];
  out: string;
  /** Render the PNG plots (with Chromium). */
  png: boolean;
}

/** `report`: the report rebuilt from DIR/results.json. */
export interface ReportOptions {
  command: 'report';
  dir: string;
  /** Render the PNG plots (with Chromium). */
  png: boolean;
}

/** `--help`: the text to print (exit 0). */
export interface HelpOptions {
  command: 'help';
  text: string;
}

export type CommandOptions =
  | RunOptions
  | CallsOptions
  | SeedOptions
  | CleanupOptions
  | MergeOptions
  | ReportOptions
  | HelpOptions;

export type CommandName = Exclude<CommandOptions['command'], 'help'>;
