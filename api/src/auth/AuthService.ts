/** Accounts: sign-up, sign-in, sign-out and password reset. Inputs are already validated. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  type CheckUsernameResponse,
  DEFAULT_LANGUAGE,
  type LanguageCode,
  RESET_TOKEN_TTL_MS,
  usernameProblem,
} from '@voice/protocol';
import { type Db, uniqueViolation } from '../db/index.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Mailer } from '../mail/Mailer.ts';
import { passwordResetMail } from '../mail/templates.ts';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../passwords.ts';
import type { UserRepository, UserRow } from '../users/UserRepository.ts';
import type { Sessions } from './Sessions.ts';

export interface RegisterInput {
  username: string;
  email: string;
  password: string;
  displayName?: string | undefined;
  language?: LanguageCode | undefined;
}

export interface AuthDeps {
  db: Db;
  users: UserRepository;
  sessions: Sessions;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
  /** Told when sessions end: one (logout) or, with null, all of a user's (password reset). */
  onSessionsRevoked?: (userId: string, sessionId: string | null) => Promise<void>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class AuthService {
  /** Reset links being issued after their request was answered. */
  readonly #background = new Set<Promise<void>>();

  constructor(readonly deps: AuthDeps) {}

  async register(input: RegisterInput): Promise<{ token: string; user: UserRow }> {
    const { db, users, sessions } = this.deps;
    const passwordHash = await hashPassword(input.password);
    try {
      // One transaction: a sign-up that fails half-way (its session's row past the deadline,
      // say) leaves no account behind to make the retry's username "taken".
      return await db.transaction(async (trx) => {
        const user = await users.create(
          {
            username: input.username,
            email: input.email,
            passwordHash,
            displayName: input.displayName ?? null,
            language: input.language ?? DEFAULT_LANGUAGE,
          },
          trx,
        );
        return { token: await sessions.issue(user.id, trx), user };
      });
    } catch (error) {
      // The unique indexes decide races: of two sign-ups at once exactly one wins.
      const constraint = uniqueViolation(error);
      if (constraint?.includes('username')) throw new AppError('USERNAME_TAKEN', 'username');
      if (constraint?.includes('email')) throw new AppError('EMAIL_TAKEN', 'email');
      throw error;
    }
  }

  /** Checks the credentials; the same error, and about the same time, for a wrong name or password. */
  async login(login: string, password: string): Promise<{ token: string; user: UserRow }> {
    const user = await this.deps.users.findByLogin(login);
    if (!user) {
      await burnPasswordCheck(password);
      throw new AppError('INVALID_CREDENTIALS');
    }
    if (!(await verifyPassword(password, user.password_hash))) throw new AppError('INVALID_CREDENTIALS');
    return { token: await this.deps.sessions.issue(user.id), user };
  }

  async checkUsername(username: string): Promise<CheckUsernameResponse> {
    const problem = usernameProblem(username);
    if (problem) return { available: false, reason: problem };
    if (await this.deps.users.usernameExists(username)) return { available: false, reason: 'taken' };
    return { available: true };
  }

  /**
   * Issues a reset link when the email belongs to an account. Everything (the lookup, the
   * token's row, the mail) happens after the answer, so the answer takes the same time
   * whether or not the account exists; failures are logged, never answered.
   */
  async forgotPassword(email: string): Promise<void> {
    // Begun on the next turn of the event loop, once this request's answer is on its way.
    const work = new Promise((resolve) => setImmediate(resolve))
      .then(() => this.#sendResetLink(email))
      .catch((error: unknown) => this.deps.logger.error('password reset mail failed', { error }));
    this.#background.add(work);
    void work.finally(() => this.#background.delete(work));
  }

  /** Waits for reset links still being issued; call before closing the database and the mailer. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#background]);
  }

  async #sendResetLink(email: string): Promise<void> {
    const { db, users, mailer, publicUrl } = this.deps;
    const user = await users.findByEmail(email);
    if (!user) return;
    const token = randomBytes(32).toString('base64url');
    await db('password_resets').insert({
      id: randomUUID(),
      user_id: user.id,
      token_hash: sha256(token),
      expires_at: new Date(Date.now() + RESET_TOKEN_TTL_MS),
    });
    const link = `${publicUrl}/reset-password?token=${token}`;
    await mailer.send(passwordResetMail(user.email, user.username, link, user.language));
  }

  async logout(userId: string, sessionId: string): Promise<void> {
    await this.deps.sessions.revoke(sessionId);
    await this.deps.onSessionsRevoked?.(userId, sessionId);
  }

  async verifyResetToken(token: string): Promise<boolean> {
    const row = await this.deps
      .db('password_resets')
      .where({ token_hash: sha256(token) })
      .whereNull('used_at')
      .andWhere('expires_at', '>', new Date())
      .first('id');
    return row !== undefined;
  }

  /** Sets the new password, spends the token and every other one, and ends every session. */
  async resetPassword(token: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    const userId = await this.deps.db.transaction(async (trx) => {
      const reset = await trx('password_resets')
        .where({ token_hash: sha256(token) })
        .whereNull('used_at')
        .andWhere('expires_at', '>', new Date())
        .forUpdate()
        .first('id', 'user_id');
      if (!reset) throw new AppError('RESET_TOKEN_INVALID', 'token');
      await trx('password_resets')
        .where({ user_id: reset.user_id })
        .whereNull('used_at')
        .update({ used_at: new Date() });
      await this.deps.users.setPassword(reset.user_id, passwordHash, trx);
      await this.deps.sessions.revokeAll(reset.user_id, trx);
      return reset.user_id as string;
    });
    // Committed: every process's cache forgets the person's sessions and old row.
    await this.deps.sessions.userChanged(userId);
    await this.deps.onSessionsRevoked?.(userId, null);
  }
}
