import type { Knex } from 'knex';

/**
 * Accounts the load tester created (issue 20): marked so that search, friend requests and
 * cleanup can tell them from people. The partial index holds only test accounts, by
 * username, for cleanup's prefix lookups; people's rows cost it nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.boolean('is_loadtest').notNullable().defaultTo(false);
  });
  await knex.raw(
    'CREATE INDEX users_loadtest_username ON users ((lower(username) COLLATE "C")) WHERE is_loadtest',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS users_loadtest_username');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('is_loadtest');
  });
}
