import type { Knex } from 'knex';

/**
 * A room name is limited to 100 characters as a person sees them (grapheme clusters), and
 * one such character can take several code points (a family emoji takes 7): the column holds
 * the code points that 100 of them may need.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rooms', (t) => {
    t.string('name', 1000).notNullable().alter();
  });
}

export async function down(knex: Knex): Promise<void> {
  // Names longer than the old column are cut rather than lost with the migration.
  await knex.raw('UPDATE rooms SET name = left(name, 100) WHERE char_length(name) > 100');
  await knex.schema.alterTable('rooms', (t) => {
    t.string('name', 100).notNullable().alter();
  });
}
