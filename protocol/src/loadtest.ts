/**
 * The load tester's accounts (issue 20 item 2): with LOADTEST_SECRET set on the API, `seed`
 * creates test accounts in bulk and hands back their session tokens, `cleanup` removes them.
 * Without the secret both routes answer 404, like any unknown path.
 */

/** Route paths (relative to API_BASE). */
export const LOADTEST_ROUTES = {
  seed: '/loadtest/seed',
  cleanup: '/loadtest/cleanup',
} as const;

/** The request header that carries LOADTEST_SECRET. */
export const LOADTEST_SECRET_HEADER = 'X-Loadtest-Secret';

export const LOADTEST_LIMITS = {
  /** Shortest LOADTEST_SECRET the API starts with. */
  secretMin: 16,
  prefixMin: 2,
  prefixMax: 16,
  /** Accounts one seed call creates at most. */
  countMax: 500,
  /** Largest batch `befriend: 'all'` may join (n·(n−1) friendships). */
  befriendAllMax: 50,
  /** Largest `start`: the username (prefix + index) stays within the usernames' 32 characters. */
  startMax: 999_999,
} as const;

/** Lowercase letters, digits and underscore: a prefix is the start of a username. */
export const LOADTEST_PREFIX_PATTERN = /^[a-z0-9_]+$/;

export const LOADTEST_BEFRIEND = ['none', 'pairs', 'all'] as const;
/** `pairs`: the 1st and 2nd of the batch, the 3rd and 4th…; `all`: everyone in the batch with everyone. */
export type LoadtestBefriend = (typeof LOADTEST_BEFRIEND)[number];

/** POST LOADTEST_ROUTES.seed: creates (or reuses) `${prefix}${start + i}` for i in 0..count−1. */
export interface SeedRequest {
  prefix: string;
  count: number;
  /** Index of the first account (default 0), so shards seed ranges of their own. */
  start?: number;
  /** Default `none`. */
  befriend?: LoadtestBefriend;
}

export interface SeedAccount {
  id: string;
  username: string;
  displayName: string;
  /** A session token, as login hands out: put it in local storage under STORAGE_KEYS.token. */
  token: string;
}

export interface SeedResponse {
  /** In index order. */
  accounts: SeedAccount[];
}

/** POST LOADTEST_ROUTES.cleanup: removes every test account whose username starts with `prefix`. */
export interface CleanupRequest {
  prefix: string;
}

export interface CleanupResponse {
  removed: number;
}
