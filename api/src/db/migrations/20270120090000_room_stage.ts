import type { Knex } from 'knex';

/**
 * Stage rooms (like a Discord Stage): only speakers talk, the audience listens. Chosen when a
 * room is made and never changed; rooms made before it are not stages.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rooms', (t) => {
    t.boolean('stage').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rooms', (t) => {
    t.dropColumn('stage');
  });
}
