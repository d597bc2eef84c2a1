/**
 * A UserRepository that reports each committed change of a profile, so that caches of user
 * rows (the session cache) forget the old one on every process.
 */
import type { Db } from '../db/index.ts';
import { type ProfileChanges, UserRepository } from './UserRepository.ts';

/** Told after a row changed; must not throw (the change is saved already). */
export type UserChangedListener = (userId: string) => Promise<void>;

export class WatchedUserRepository extends UserRepository {
  readonly #onChanged: UserChangedListener;

  constructor(db: Db, onChanged: UserChangedListener) {
    super(db);
    this.#onChanged = onChanged;
  }

  override async updateProfile(id: string, changes: ProfileChanges) {
    const updated = await super.updateProfile(id, changes);
    // After the transaction: told earlier, a request could read the old row back meanwhile.
    if (updated) await this.#onChanged(id);
    return updated;
  }
}
