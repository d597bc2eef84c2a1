/**
 * The sign-in failure limits (the route counts every attempt per address before this).
 * Every attempt is counted before its password is checked, so guesses sent at once cannot
 * pass a limit together; a good password gives its count back.
 *
 * - per address: failures to any accounts (the hard limit);
 * - per account and address: consecutive failures, then locks that double each time.
 *   The owner, from another address, still signs in while a guesser's address is locked.
 *   A username and its email count as one account; a new password (a completed reset)
 *   starts the count afresh for every address.
 */
import { AppError } from '../errors.ts';
import { addressKey, LIMITS, type RateLimiter } from '../http/RateLimiter.ts';
import type { UserRepository } from '../users/UserRepository.ts';

export class LoginGuard {
  constructor(
    readonly limiter: RateLimiter,
    readonly users: Pick<UserRepository, 'findByLogin'>,
  ) {}

  /** Runs `verify` (the password check) for `login` from `ip` within the limits. */
  async attempt<T>(login: string, ip: string, verify: () => Promise<T>): Promise<T> {
    const { limiter } = this;
    const address = addressKey(ip);
    const account = `${await this.#accountKey(login)}|${address}`;
    await limiter.consume(LIMITS.loginFailuresPerIp, address);
    await limiter.consume(LIMITS.loginFailuresPerAccount, account);
    let result: T;
    try {
      result = await verify();
    } catch (error) {
      // Only a wrong password counts as a failure; a fault of ours is not the client's.
      if (!(error instanceof AppError && error.code === 'INVALID_CREDENTIALS')) {
        await limiter.reward(LIMITS.loginFailuresPerIp, address);
        await limiter.reward(LIMITS.loginFailuresPerAccount, account);
      }
      throw error;
    }
    await limiter.reward(LIMITS.loginFailuresPerIp, address);
    await limiter.reset(LIMITS.loginFailuresPerAccount, account);
    return result;
  }

  /**
   * One key per account whichever name it is given by, and a fresh one after each new
   * password. A name without an account is counted by itself, so guessing there is limited
   * alike and the answer does not tell whether the account exists.
   */
  async #accountKey(login: string): Promise<string> {
    const user = await this.users.findByLogin(login);
    if (!user) return `login:${login.toLowerCase()}`;
    return `user:${user.id}:${new Date(user.password_changed_at).getTime()}`;
  }
}
