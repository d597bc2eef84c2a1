/**
 * The deployment under test, through its public API: is it there, the load-test accounts (the
 * LOADTEST_SECRET routes), and the room the participants meet in. Every failure a person running
 * the tool can fix is a SetupError of one line (exit 2).
 */
import {
  API_BASE,
  type CleanupResponse,
  type CreateRoomBody,
  LOADTEST_LIMITS,
  LOADTEST_ROUTES,
  LOADTEST_SECRET_HEADER,
  type LoadtestBefriend,
  ROOM_ROUTES,
  ROUTES,
  type Room,
  type RoomResponse,
  type RoomsResponse,
  type SeedAccount,
  type SeedResponse,
} from '@voice/protocol';
import { SetupError } from '../cli/errors.ts';

/** How long one API call may take before the deployment counts as not answering. */
const CALL_TIMEOUT_MS = 15_000;

interface CallOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  token?: string;
  secret?: string;
}

/** An answer that was not 2xx: its status and the server's own error text. */
class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class Deployment {
  /** `url`: the deployment's base URL, without a trailing slash (as the CLI parsed it). */
  constructor(readonly url: string) {}

  /** Throws a SetupError unless the API answers its health check. */
  async checkReachable(): Promise<void> {
    try {
      await this.#call(ROUTES.health);
    } catch (error) {
      throw new SetupError(`cannot reach ${this.url}: ${reason(error)}`);
    }
  }

  /**
   * Test accounts `${prefix}${start}`…, made (or found again) in batches the server accepts, with
   * their session tokens; `befriend: 'pairs'` makes the 1st and 2nd friends, the 3rd and 4th…
   */
  async seed(
    secret: string,
    plan: { prefix: string; count: number; start: number; befriend: LoadtestBefriend },
  ): Promise<SeedAccount[]> {
    const accounts: SeedAccount[] = [];
    // Batches of an even size, so that pairs never straddle two of them.
    const batch = LOADTEST_LIMITS.countMax - (LOADTEST_LIMITS.countMax % 2);
    for (let done = 0; done < plan.count; done += batch) {
      const answer = await this.#secretCall<SeedResponse>(LOADTEST_ROUTES.seed, secret, {
        prefix: plan.prefix,
        count: Math.min(batch, plan.count - done),
        start: plan.start + done,
        befriend: plan.befriend,
      });
      accounts.push(...answer.accounts);
    }
    return accounts;
  }

  /** Removes every test account whose username starts with `prefix`; how many went. */
  async cleanup(secret: string, prefix: string): Promise<number> {
    const answer = await this.#secretCall<CleanupResponse>(LOADTEST_ROUTES.cleanup, secret, { prefix });
    return answer.removed;
  }

  /**
   * The room called `name` as `token`'s person sees it (exact name), created with `create` when
   * there is none and that is allowed; a SetupError otherwise.
   */
  async room(token: string, name: string, create: CreateRoomBody | null): Promise<Room> {
    const query = new URLSearchParams({ query: name });
    const { rooms } = await this.#setupCall<RoomsResponse>(`${ROOM_ROUTES.rooms}?${query}`, { token });
    const found = rooms.find((room) => room.name === name);
    if (found) return found;
    if (!create) throw new SetupError(`no room called '${name}' on ${this.url} (--create makes it)`);
    const { room } = await this.#setupCall<RoomResponse>(ROOM_ROUTES.rooms, {
      method: 'POST',
      token,
      body: create,
    });
    return room;
  }

  async #secretCall<T>(route: string, secret: string, body: unknown): Promise<T> {
    try {
      return await this.#call<T>(route, { method: 'POST', secret, body });
    } catch (error) {
      if (error instanceof ApiRefusal && error.status === 404)
        throw new SetupError(`${this.url} has no load-test routes: set LOADTEST_SECRET on its API`);
      if (error instanceof ApiRefusal && error.status === 403)
        throw new SetupError(`${this.url} refused the load-test secret (LOADTEST_SECRET or --secret)`);
      throw new SetupError(`${route.slice(1).replace('/', ' ')} failed: ${reason(error)}`);
    }
  }

  async #setupCall<T>(route: string, options: CallOptions): Promise<T> {
    try {
      return await this.#call<T>(route, options);
    } catch (error) {
      throw new SetupError(`${options.method ?? 'GET'} ${API_BASE}${route} failed: ${reason(error)}`);
    }
  }

  async #call<T>(route: string, options: CallOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.secret !== undefined) headers[LOADTEST_SECRET_HEADER] = options.secret;
    const response = await fetch(`${this.url}${API_BASE}${route}`, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const text = await response.text();
    if (!response.ok) throw new ApiRefusal(response.status, `${response.status} ${serverError(text)}`);
    return (text ? JSON.parse(text) : {}) as T;
  }
}

/** The server's error message from its JSON body, or the start of whatever it sent. */
function serverError(text: string): string {
  try {
    // The API's ErrorBody: { error: { code, message, field? } }.
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return body.error.message;
  } catch {
    // not JSON: a proxy's page, say
  }
  return text.replace(/\s+/g, ' ').slice(0, 120);
}

/** One line for a failed fetch: the cause's code (ECONNREFUSED…) when there is one. */
function reason(error: unknown): string {
  if (error instanceof ApiRefusal) return error.message;
  if (error instanceof Error && error.name === 'TimeoutError')
    return `no answer in ${CALL_TIMEOUT_MS / 1000} s`;
  const cause =
    error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
