/** Reads and writes `users` rows; the only module that knows the table's columns. */
import { randomUUID } from 'node:crypto';
import type { LanguageCode } from '@voice/protocol';
import type { Db } from '../db/index.ts';

/** A row of `users`. */
export interface UserRow {
  id: string;
  username: string;
  email: string;
  password_hash: string;
  display_name: string | null;
  avatar_url: string | null;
  language: LanguageCode;
  last_seen: Date | null;
  onboarded_at: Date | null;
  password_changed_at: Date;
  created_at: Date;
  updated_at: Date;
}

export interface NewUser {
  username: string;
  email: string;
  passwordHash: string;
  displayName: string | null;
  language: LanguageCode;
}

export class UserRepository {
  constructor(readonly db: Db) {}

  async create(user: NewUser): Promise<UserRow> {
    const [row] = await this.db<UserRow>('users')
      .insert({
        id: randomUUID(),
        username: user.username,
        email: user.email,
        password_hash: user.passwordHash,
        display_name: user.displayName,
        language: user.language,
      })
      .returning('*');
    if (!row) throw new Error('insert returned no row');
    return row;
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.db<UserRow>('users').where({ id }).first();
  }

  /** Case-insensitive lookup by username or email. */
  findByLogin(login: string): Promise<UserRow | undefined> {
    const column = login.includes('@') ? 'email' : 'username';
    return this.db<UserRow>('users').whereRaw(`lower(${column}) = lower(?)`, [login]).first();
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.db<UserRow>('users').whereRaw('lower(email) = lower(?)', [email]).first();
  }

  async usernameExists(username: string): Promise<boolean> {
    const row = await this.db('users').whereRaw('lower(username) = lower(?)', [username]).first('id');
    return row !== undefined;
  }

  async setPassword(id: string, passwordHash: string, trx: Db = this.db): Promise<void> {
    await trx('users')
      .where({ id })
      .update({ password_hash: passwordHash, password_changed_at: new Date(), updated_at: new Date() });
  }
}
