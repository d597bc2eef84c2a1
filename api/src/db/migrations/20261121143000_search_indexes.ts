import type { Knex } from 'knex';

/**
 * Search (see FriendRepository.search) reads prefixes in order from btree indexes in
 * the C collation (LIKE 'ab%' becomes a range scan, ORDER BY reads the index), then
 * substrings of 3+ characters through one trigram index over both names.
 */
export async function up(knex: Knex): Promise<void> {
  // One trigram index over both names: one posting-list walk per trigram instead of two.
  await knex.raw('DROP INDEX IF EXISTS users_display_name_trgm');
  await knex.raw('DROP INDEX IF EXISTS users_username_trgm');
  await knex.raw(
    "ALTER TABLE users ADD COLUMN search_text text GENERATED ALWAYS AS (lower(username || ' ' || coalesce(display_name, ''))) STORED",
  );
  await knex.raw('CREATE INDEX users_search_text_trgm ON users USING gin (search_text gin_trgm_ops)');
  await knex.raw('CREATE INDEX users_username_prefix ON users ((lower(username) COLLATE "C"))');
  await knex.raw('CREATE INDEX users_display_name_prefix ON users ((lower(display_name) COLLATE "C"))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS users_display_name_prefix');
  await knex.raw('DROP INDEX IF EXISTS users_username_prefix');
  await knex.raw('DROP INDEX IF EXISTS users_search_text_trgm');
  await knex.raw('ALTER TABLE users DROP COLUMN search_text');
  await knex.raw('CREATE INDEX users_username_trgm ON users USING gin (lower(username) gin_trgm_ops)');
  await knex.raw(
    "CREATE INDEX users_display_name_trgm ON users USING gin (lower(coalesce(display_name, '')) gin_trgm_ops)",
  );
}
