/** Reads and writes `users` rows; the only module that knows the table's columns. */
import { randomUUID } from 'node:crypto';
import type { LanguageCode, Theme, VoiceSettings } from '@voice/protocol';
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
  theme: Theme;
  /** Null until the person changes one (the defaults hold). */
  voice_settings: VoiceSettings | null;
  last_seen: Date | null;
  onboarded_at: Date | null;
  password_changed_at: Date;
  /** An account the load tester created (loadtest/): kept apart from people's. */
  is_loadtest: boolean;
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

/** Profile fields to change; absent fields stay as they are. */
export interface ProfileChanges {
  displayName?: string;
  language?: LanguageCode;
  theme?: Theme;
  voiceSettings?: VoiceSettings;
  avatarUrl?: string | null;
  /** Sets onboarded_at unless it is set already. */
  onboarded?: boolean;
}

export class UserRepository {
  constructor(readonly db: Db) {}

  /** Inserts the row; pass a transaction to make it part of a larger change. */
  async create(user: NewUser, trx: Db = this.db): Promise<UserRow> {
    const [row] = await trx<UserRow>('users')
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

  /**
   * Applies `changes` and returns the new row with the avatar_url and display_name it
   * replaced, or undefined for an unknown id. The row is locked meanwhile, so of two
   * concurrent avatar changes the second sees the first as the one it replaced (and no
   * file is orphaned).
   */
  async updateProfile(
    id: string,
    changes: ProfileChanges,
  ): Promise<
    { row: UserRow; previousAvatarUrl: string | null; previousDisplayName: string | null } | undefined
  > {
    return this.db.transaction(async (trx) => {
      const current = await trx<UserRow>('users')
        .where({ id })
        .forUpdate()
        .first('avatar_url', 'display_name');
      if (!current) return undefined;
      const patch: Record<string, unknown> = { updated_at: new Date() };
      if (changes.displayName !== undefined) patch.display_name = changes.displayName;
      if (changes.language !== undefined) patch.language = changes.language;
      if (changes.theme !== undefined) patch.theme = changes.theme;
      if (changes.voiceSettings !== undefined) patch.voice_settings = JSON.stringify(changes.voiceSettings);
      if (changes.avatarUrl !== undefined) patch.avatar_url = changes.avatarUrl;
      if (changes.onboarded) patch.onboarded_at = trx.raw('coalesce(onboarded_at, now())');
      const [row] = await trx<UserRow>('users').where({ id }).update(patch).returning('*');
      if (!row) throw new Error('update returned no row');
      return {
        row: row as UserRow,
        previousAvatarUrl: current.avatar_url,
        previousDisplayName: current.display_name,
      };
    });
  }

  /** True when some user's avatar_url is `url` (uploaded files can be shared: they are named by content). */
  async avatarInUse(url: string): Promise<boolean> {
    const row = await this.db('users')
      .where({ avatar_url: url })
      // Repeats the partial index's condition so PostgreSQL can use it.
      .andWhereLike('avatar_url', '/avatars/u/%')
      .first('id');
    return row !== undefined;
  }
}
