import type { Knex } from 'knex';

/** Voice settings kept in the profile (issue 19): null until the person changes one. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.jsonb('voice_settings').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('voice_settings');
  });
}
