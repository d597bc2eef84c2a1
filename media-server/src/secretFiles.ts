/**
 * Secrets given as files (Docker secrets, Kubernetes secret volumes), by the official postgres
 * image's convention: NAME_FILE=/run/secrets/name stands for NAME set to that file's contents.
 * Used by both config loaders, the media server's and the API's.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/**
 * NAME from the environment, or the contents of the file NAME_FILE names, trimmed; undefined when
 * neither is set, or when NAME_FILE cannot be used (the problem is pushed, named after NAME_FILE).
 * The caller validates what comes back as it would NAME itself.
 */
export function secretFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  problems: string[],
): string | undefined {
  // Empty counts as unset: docker compose passes `${VAR:-}` through as an empty string.
  const value = env[name]?.trim() || undefined;
  const fileName = `${name}_FILE`;
  const file = env[fileName]?.trim() || undefined;
  if (file === undefined) return value;
  if (value !== undefined) {
    problems.push(`${name}, ${fileName}: set one, not both`);
    return value;
  }
  if (!isAbsolute(file)) {
    problems.push(`${fileName}: must be an absolute path (got "${file}")`);
    return undefined;
  }
  let contents: string;
  try {
    contents = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    problems.push(`${fileName}: cannot read ${file} (${code ?? message})`);
    return undefined;
  }
  if (contents === '') {
    problems.push(`${fileName}: ${file} is empty`);
    return undefined;
  }
  return contents;
}

/**
 * `url` with `password` (DATABASE_PASSWORD, REDIS_PASSWORD) as its password, so an operator keeps
 * one secret and the URL carries none. Percent-encoded: `@`, `/`, `:` and `%` come back intact
 * from node-postgres and node-redis, which decode it. A URL without a user gets an empty one
 * (`redis://:password@host`, Redis's AUTH with the password alone). Problems are named after
 * passwordName; a URL that does not parse is left as is (its own check names it).
 */
export function urlWithPassword<Unset extends null | undefined>(
  urlName: string,
  url: string | Unset,
  passwordName: string,
  password: string | null | undefined,
  problems: string[],
): string | Unset {
  if (password === undefined || password === null) return url;
  if (url === undefined || url === null) {
    problems.push(`${passwordName}: needs ${urlName}`);
    return url;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.password !== '') {
    problems.push(`${passwordName}: ${urlName} has a password already; set one, not both`);
    return url;
  }
  // A URL without a host (a Unix socket in the query) can hold no password: the setter ignores it.
  parsed.password = encodeURIComponent(password);
  if (parsed.password === '') {
    problems.push(`${passwordName}: ${urlName} names no host to give the password to`);
    return url;
  }
  return parsed.href;
}
