import type { Knex } from 'knex';

/** The interface theme kept in the profile like the language, so it follows the account to other devices. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.string('theme', 8).notNullable().defaultTo('dark');
  });
  await knex.raw("ALTER TABLE users ADD CONSTRAINT users_theme_check CHECK (theme IN ('dark', 'light'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('theme');
  });
}
